"""The families of FlashInfer's JIT-rendered GEMM modules (SM120, SM100) share one shape: each model module
types a call (`tactic_of`), says why it cannot (a reason string) and computes the numbers of each
kernel the call builds (`evaluate` -> KernelNumbers). This adapter puts such a module behind the
family seam once, instead of once per family.

A call that builds several kernels (the FP4 GEMM's persistent and Stream-K kernels) is judged by
the one that needs the most shared memory: the runner fails when either cannot initialize.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import cache
from types import ModuleType
from typing import Any, ClassVar

from pydantic import SerializerFunctionWrapHandler, model_serializer

from cutlint.families.base import (
    CannotRun,
    Claim,
    Facts,
    InputField,
    Unreadable,
    built_for,
    regions,
)
from cutlint.families.kernel_numbers import KernelNumbers
from cutlint.families.macro_parameters import by_parameter_name
from cutlint.model.context import ModelContext
from cutlint.producers.flashinfer.cache_layout import jit_module_dir
from cutlint.records import (
    FormKind,
    Instantiation,
    Recipe,
    Resources,
    SmemLayout,
)


@cache
def _names(model: ModuleType) -> frozenset[str]:
    """A family's macro and launcher names, from its data file (read once: `family_data` is
    the family's constant family.toml), so computed once per family."""
    data: dict[str, Any] = model.family_data()
    found = {data["macro"]} if "macro" in data else set()
    also = set(data.get("defined_as", {}))
    return frozenset(found | also | set(data.get("macros", {})) | set(data.get("launchers", {})))


class KernelCallRecipe(Recipe):
    """One call of a JIT module's macro or launcher template, as written."""

    name: str
    args: tuple[str, ...]
    release: str | None = None
    """The FlashInfer release that wrote it (its header decides the stage policy)."""
    variant: str | None = None
    """What the file selects of the header besides the call (a family's name for the #defines
    before its #include), when the family reads one; None: the header as it is."""
    written: tuple[str, ...] | None = None
    """The arguments as the call writes them, when `args` is their reading by the definition's
    parameter names (another order, or defaults added); None: `args` as written."""
    definition: str | None = None
    """`path:line` of the `#define` the arguments were read by; None: not found (the modeled
    header's was assumed)."""
    modeled_as: str | None = None
    """The modeled header's macro whose recipe the call builds, when it is not `name`'s
    (TensorRT-LLM's `INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER(Sm103, ...)` builds the recipe of
    FlashInfer's SM103 ultra macro); None: `name`'s own. `args` are in that macro's order."""

    @property
    def model_name(self) -> str:
        """The macro the model reads the arguments as."""
        return self.modeled_as or self.name

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # left out when unset: a call read as before dumps as before (result caches, JSON)
        out: dict[str, Any] = handler(self)
        for key in ("written", "definition", "modeled_as"):
            if out.get(key, 0) is None:
                del out[key]
        return out


_KERNELS: dict[tuple[str, KernelCallRecipe], tuple[KernelNumbers, ...] | str] = {}
"""Each call's kernel numbers by (family, recipe): pure functions of the call as written and the
release, so one run (and every run of a process, as the API's) reuses them."""


class JitModuleFamily:
    """A family whose model module has `family_data`, `tactic_of`, `evaluate`,
    `mainloop_shared_storage` and `epilogue_shared_storage`."""

    metrics: ClassVar[Mapping[str, str]] = {"jit.kernel": "which kernel of the call is judged"}
    metric_inputs: ClassVar[Mapping[str, tuple[str, ...]]] = {"jit.kernel": ("input.call",)}
    columns: ClassVar[tuple[str, ...]] = ("call", "kernel")
    probe: ClassVar[str | None] = "jit-module"

    name: ClassVar[str]
    package: ClassVar[str]
    model: ClassVar[ModuleType]
    runs_on: ClassVar[tuple[int, ...]] = (120, 121)
    """The arches the kernels are built for (their cache's arch directories)."""
    built_for: ClassVar[str] = "an SM120 kernel"
    module_dirs: ClassVar[tuple[str, ...]] = ("gen_gemm_sm120",)
    """The JIT module directories (prefixes) whose files hold this family's kernels: in a cache,
    a file's module directory says which header its macro is, not the argument count."""

    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = self.model.family_data()
        return data

    def names(self) -> frozenset[str]:
        """The macro and launcher names the family claims (asked of every instantiation)."""
        return _names(self.model)

    def claim(self, inst: Instantiation, ctx: ModelContext) -> Claim:
        if inst.name not in self.names():
            return None
        if inst.form is FormKind.EXPLICIT_INSTANTIATION and "launchers" not in self._data():
            return None
        # One macro name, two headers: the SM100 and SM120 FP4 modules both define
        # INSTANTIATE_FP4_GEMM_KERNEL_LAUNCHER. In a JIT cache the file's module directory says
        # which; a file outside one is told by the parameter count (8 for SM100, 9 for SM120
        # from 0.6.11; the SM120 header of 0.5.x - 0.6.10 has 8 too, but only in its module).
        module = jit_module_dir(inst.span.path)
        targets = built_for(ctx)
        if module is not None:
            if not module.startswith(self.module_dirs):
                return None
        elif targets is not None:
            # outside a cache, the build's -gencode says which module's header it compiles: one
            # built for this family's arches is read as in its module, another's is not ours
            if not targets & set(self.runs_on):
                return None
        elif inst.parameters is None:
            # (`older_parameter_counts`: a family whose macro name no other header shares may
            # take an older release's shorter form outside a cache too)
            data = self._data()
            parameters = data.get("parameters")
            counts = {len(parameters or ()), *data.get("older_parameter_counts", ())}
            if "launchers" not in data and parameters and len(inst.args) not in counts:
                return None
        args: tuple[str, ...] = inst.args
        if inst.parameters is not None:
            got = by_parameter_name(
                self._data(), inst.name, inst.parameters, inst.args, inst.defined_at
            )
            if got is None or isinstance(got, Unreadable):
                return got
            args = got
        release = ctx.flashinfer.version if ctx.flashinfer else None
        return KernelCallRecipe(
            family=self.name,
            name=inst.name,
            args=args,
            release=release,
            written=None if args == inst.args else inst.args,
            definition=inst.defined_at,
        )

    def _assumed(self, name: str) -> str:
        """What a call whose `#define` was not found is read by: the modeled header's."""
        data = self._data()
        source = data.get("defined_as", {}).get(name, {}).get("source")
        source = source or data.get("parameters_source")
        if source is None:
            source = f"the modeled header's {name}({', '.join(data.get('parameters', ()))})"
        return f"assumed (its #define was not found): {source}"

    def _kernels(self, recipe: Recipe) -> tuple[KernelNumbers, ...] | str:
        """The numbers of every kernel of the call, or why they cannot be had; asked by
        covers, resources and facts alike, so computed once per call and release."""
        assert isinstance(recipe, KernelCallRecipe)
        key = (self.name, recipe)
        got = _KERNELS.get(key)
        if got is None:
            got = _KERNELS[key] = self._compute_kernels(recipe)
        return got

    def _compute_kernels(self, recipe: KernelCallRecipe) -> tuple[KernelNumbers, ...] | str:
        labels = tuple(self._data().get("kernels", ["default"]))
        kernels_of = getattr(self.model, "kernels_of", None)  # a header may define fewer
        if kernels_of is not None:
            labels = kernels_of(recipe.release)
        out: list[KernelNumbers] = []
        for label in labels:
            got = self._evaluate(recipe, label)
            if isinstance(got, str):
                return got
            out.append(got)
        return tuple(out)

    def _evaluate(self, recipe: KernelCallRecipe, label: str) -> KernelNumbers | str:
        """The model's numbers of one kernel of the call (a family whose files select a header
        variant passes it on)."""
        got: KernelNumbers | str = self.model.evaluate(
            recipe.model_name, recipe.args, recipe.release, label
        )
        return got

    def _tactic(self, recipe: KernelCallRecipe) -> Any:
        return self.model.tactic_of(recipe.model_name, recipe.args)

    def covers(self, recipe: Recipe, ctx: ModelContext) -> str | None:
        if ctx.arch.sm not in self.runs_on:
            return CannotRun(f"{self.built_for} (`{self.name}`) does not run on {ctx.arch.name}")
        got = self._kernels(recipe)
        return got if isinstance(got, str) else None

    def resources(self, recipe: Recipe, ctx: ModelContext) -> Resources:
        assert isinstance(recipe, KernelCallRecipe)
        kernels = self._kernels(recipe)
        assert not isinstance(kernels, str), kernels
        k = max(kernels, key=lambda n: n.smem)
        t = self._tactic(recipe)
        return Resources(
            arch=ctx.arch,
            cutlass_version=ctx.cutlass.label,
            cutlass_version_origin=ctx.cutlass.origin,
            stage_count=k.stage_count,
            layout=SmemLayout(
                regions=regions(k.layout),
                size=k.layout.size,
                align=k.layout.align,
                mainloop_size=self.model.mainloop_shared_storage(
                    t, k.stages, *self._release_recipe(recipe)
                ).size,
                epilogue_size=self.model.epilogue_shared_storage(t).size,
            ),
            max_threads_per_block=k.max_threads_per_block,
        )

    def _release_recipe(self, recipe: KernelCallRecipe) -> tuple[Any, ...]:
        """The release's recipe (`recipe_for`), for a model whose mainloop layout depends on the
        release's CUTLASS (its `mainloop_shared_storage` takes a `recipe`); else nothing."""
        if "recipe" not in inspect.signature(self.model.mainloop_shared_storage).parameters:
            return ()
        return (self.model.recipe_for(recipe.release),)

    def facts(self, recipe: Recipe, res: Resources) -> Facts:
        return {"jit.kernel": self._kernel_label(recipe)}

    def _kernel_label(self, recipe: Recipe) -> str:
        kernels = self._kernels(recipe)
        return "?" if isinstance(kernels, str) else max(kernels, key=lambda n: n.smem).kernel

    def describe(self, recipe: Recipe) -> tuple[str, ...]:
        assert isinstance(recipe, KernelCallRecipe)
        return (self.title(recipe), self._kernel_label(recipe))

    def inputs(self, recipe: Recipe) -> tuple[InputField, ...]:
        assert isinstance(recipe, KernelCallRecipe)
        return (
            InputField(
                "input.call",
                recipe.name,
                ", ".join(recipe.args),
                f"the arguments of {recipe.name}, read by the parameters of its #define "
                f"({recipe.definition or self._assumed(recipe.name)})"
                + (
                    f"; the recipe of {recipe.modeled_as}({', '.join(recipe.args)})"
                    if recipe.modeled_as
                    else ""
                ),
            ),
        )

    def title(self, recipe: Recipe) -> str:
        assert isinstance(recipe, KernelCallRecipe)
        return f"{recipe.name}({', '.join(recipe.written or recipe.args)})"
