// ---- cutlint probe printing: what every compiler probe's C++ prints its numbers with ----
// Put before a probe's own helpers (cutlint.families.probe.PRINT_HPP): the JIT-module probe, the
// MoE-macro probe and the launcher probes. One JSON object per line, built key by key; member
// offsets are taken inside raw storage of the type's alignment, never by constructing it.
#ifndef CUTLINT_PROBE_PRINT_HPP
#define CUTLINT_PROBE_PRINT_HPP
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cutlint_probe_print {

// gcc's __PRETTY_FUNCTION__ ends in "[with T = <the type>]": the type as the compiler spells it.
template <class T>
const char* type_name() {
  return __PRETTY_FUNCTION__;
}

// A JSON string: quotes and backslashes escaped, control characters as \u00XX.
inline void put_str(const char* s) {
  std::putchar('"');
  for (; *s; ++s) {
    unsigned char c = static_cast<unsigned char>(*s);
    if (c == '"' || c == '\\') { std::putchar('\\'); std::putchar(c); }
    else if (c < 0x20) { std::printf("\\u%04x", c); }
    else { std::putchar(c); }
  }
  std::putchar('"');
}

// The members of one JSON object, comma-separated after the first.
struct Out {
  bool first = true;
  void key(const char* k) { std::printf("%s\"%s\": ", first ? "" : ", ", k); first = false; }
  void num(const char* k, long long v) { key(k); std::printf("%lld", v); }
  void str(const char* k, const char* s) { key(k); put_str(s); }
};

}  // namespace cutlint_probe_print

// `has_ID<T>` and `emit_ID<T>(Out&, scope)`: offset and size (and with WITH_ALIGN, alignof) of a
// (possibly nested) data member PATH, as "scope.PATH.offset" etc., if the struct has it. Expand
// inside the probe's own namespace, where `Out` names cutlint_probe_print::Out.
#define CUTLINT_PRINT_MEMBER(ID, PATH, WITH_ALIGN)                                              \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T>                                                                            \
  struct has_##ID<T, std::void_t<decltype(std::declval<T&>().PATH)>> : std::true_type {};       \
  template <class T> void emit_##ID(Out& out, const char* scope) {                              \
    if constexpr (has_##ID<T>::value) {                                                         \
      void* raw = ::operator new(sizeof(T), std::align_val_t(alignof(T)));                      \
      T* p = static_cast<T*>(raw);                                                              \
      long long off = reinterpret_cast<const char*>(std::addressof(p->PATH)) -                  \
                      reinterpret_cast<const char*>(p);                                         \
      char k[256];                                                                              \
      std::snprintf(k, sizeof k, "%s.%s.offset", scope, #PATH);                                 \
      out.num(k, off);                                                                          \
      std::snprintf(k, sizeof k, "%s.%s.size", scope, #PATH);                                   \
      out.num(k, static_cast<long long>(sizeof(p->PATH)));                                      \
      if constexpr (WITH_ALIGN) {                                                               \
        std::snprintf(k, sizeof k, "%s.%s.align", scope, #PATH);                                \
        out.num(k, static_cast<long long>(alignof(decltype(p->PATH))));                         \
      }                                                                                         \
      ::operator delete(raw, std::align_val_t(alignof(T)));                                     \
    }                                                                                           \
  }

// `has_ID<T>` and `emit_ID<T>(Out&, key)`: a static constexpr member NAME, if the class has it.
#define CUTLINT_PRINT_STATIC(ID, NAME)                                                          \
  template <class T, class = void> struct has_##ID : std::false_type {};                        \
  template <class T> struct has_##ID<T, std::void_t<decltype(T::NAME)>> : std::true_type {};   \
  template <class T> void emit_##ID(Out& out, const char* key) {                                \
    if constexpr (has_##ID<T>::value) { out.num(key, static_cast<long long>(T::NAME)); }        \
  }

#endif  // CUTLINT_PROBE_PRINT_HPP
