"""`[tool.cutlint]` in pyproject.toml: the project's defaults for `cutlint check`.

Found like ruff finds `[tool.ruff]`: the first `pyproject.toml` from the current directory upward
that has a `[tool.cutlint]` table (a pyproject.toml without one is passed over). `--config FILE`
names the file instead (a pyproject.toml, or a TOML file whose top level is the table);
`--no-config` ignores every file. Command-line flags override the file. Unknown keys are an error,
so a typo never silently turns a setting off. The keys are documented in docs/ci.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from cutlint import inputs
from cutlint.cutlass.versions import check_cutlass_version, is_directory
from cutlint.model.arch import arch_for
from cutlint.parse.defines import define_problem

FailOn = Literal["error", "warning", "info", "note", "never"]
Format = Literal["text", "concise", "json", "sarif", "github"]
"""The formats a config may name: cutlint.report.FORMATS (a test keeps them so)."""


class ConfigError(Exception):
    """The config file cannot be read or holds a key or value cutlint does not accept."""


def _define(spec: str) -> tuple[str, str]:
    """`NAME` or `NAME=VALUE`, as `-D` takes it."""
    name, _, value = spec.partition("=")
    if not name.strip():
        raise ValueError(f"define {spec!r} has no macro name")
    return _checked(name.strip(), value or "1")


def _checked(name: str, value: str) -> tuple[str, str]:
    """A define libclang can be given: a name that is an identifier, a value of one printable
    line (parse.defines.define_problem says why; a newline would add directives of the file's
    choosing to every parse)."""
    why = define_problem(name, value)
    if why is not None:
        raise ValueError(why)
    return name, value


INTMAX_MIN, UINTMAX_MAX = -(2**63), 2**64 - 1
"""What the preprocessor's arithmetic holds ([cpp.cond]: intmax_t and uintmax_t, 64 bits)."""


class Config(BaseModel):
    """The `[tool.cutlint]` table. Keys are spelled as in the file (`fail-on`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    arch: str | None = Field(default=None, description="target arch, as --arch (sm_120)")
    select: tuple[str, ...] | None = Field(default=None, description="rule ids or prefixes")
    ignore: tuple[str, ...] | None = Field(default=None, description="rule ids or prefixes")
    fail_on: FailOn | None = Field(default=None, alias="fail-on")
    defines: dict[str, str] | None = Field(
        default=None,
        description='macros for #if evaluation: a table `{ ENABLE_FP4 = "1" }` or a list '
        '`["ENABLE_FP4", "NAME=VALUE"]`; added to the default set, as -D is',
    )
    undefines: tuple[str, ...] | None = Field(default=None, description="macros to undefine")
    exclude: tuple[str, ...] | None = Field(
        default=None,
        description="globs of files and directories to skip, as --exclude; a pattern with a `/` "
        "is relative to the config file's directory",
    )
    cutlass_version: str | None = Field(
        default=None,
        alias="cutlass-version",
        description="a version (4.5.0) or a CUTLASS include directory, relative to the file",
    )
    format: Format | None = None
    baseline: str | None = Field(
        default=None, description="the baseline file, relative to the config file"
    )

    @field_validator("defines", mode="before")
    @classmethod
    def _defines(cls, v: Any) -> Any:
        if isinstance(v, list):
            if not all(isinstance(s, str) for s in v):
                raise ValueError("a list of defines holds strings: NAME or NAME=VALUE")
            return dict(_define(s) for s in v)
        if isinstance(v, dict):
            out: dict[str, str] = {}
            for name, value in v.items():
                if value is True:
                    out.update([_checked(name, "1")])
                elif isinstance(value, bool):
                    raise ValueError(f"{name} = false: list the macro under `undefines` instead")
                elif isinstance(value, int):
                    if not INTMAX_MIN <= value <= UINTMAX_MAX:
                        raise ValueError(
                            f"{name}: a value of {len(str(abs(value))):,} digits is more than the "
                            "preprocessor's 64-bit arithmetic holds"
                        )
                    out.update([_checked(name, str(value))])
                elif isinstance(value, str):
                    out.update([_checked(name, value)])
                else:
                    raise ValueError(f"{name}: a define's value is a string or an integer")
            return out
        return v

    @field_validator("select", "ignore")
    @classmethod
    def _selectors(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """An unknown rule id, prefix or name is an error here as on the command line."""
        from cutlint.engine.selection import check_selectors

        return None if v is None else check_selectors(v, "")

    @field_validator("undefines")
    @classmethod
    def _undefines(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        for name in v or ():
            why = define_problem(name)
            if why is not None:
                raise ValueError(why)
        return v

    @field_validator("arch")
    @classmethod
    def _arch(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                arch_for(v)
            except KeyError:
                raise ValueError(f"unknown arch {v!r}") from None
        return v


DEFAULTS = Config.model_construct()
"""No file: every key unset. Made without validation (there is nothing to validate), so that a
run without a config does not build the Config validator."""


@dataclass(frozen=True)
class LoadedConfig:
    """A config and where it came from (None: no file, every default)."""

    config: Config
    path: Path | None = None

    @property
    def directory(self) -> Path | None:
        """The project root the file stands for: relative paths in it are relative to this."""
        return self.path.parent.resolve() if self.path else None

    def resolve(self, value: str) -> Path:
        """A path written in the file, relative to the file's directory."""
        p = Path(value).expanduser()
        return p if p.is_absolute() or self.directory is None else self.directory / p

    def exclude(self) -> tuple[str, ...]:
        """`exclude`, each pattern with a `/` anchored at the file's directory."""
        out = []
        for p in self.config.exclude or ():
            anchored = "/" in p.rstrip("/") and not p.startswith(("/", "*"))
            out.append(str(self.directory / p) if anchored and self.directory else p)
        return tuple(out)

    def cutlass_version(self) -> str | None:
        """The version as given, or an include directory made absolute."""
        v = self.config.cutlass_version
        if v is None or self.directory is None:
            return v
        candidate = self.resolve(v)
        return str(candidate) if is_directory(candidate) else v


def _read_toml(path: Path, hint: str = "") -> dict[str, Any]:
    """Through cutlint.inputs: a regular file of at most 4 MiB, nesting bounded; a number Python
    will not convert, invalid UTF-8 or a FIFO is a ConfigError like a syntax error."""
    try:
        return inputs.load_toml(path, inputs.CONFIG)
    except inputs.InputError as e:
        raise ConfigError(f"{path}: cannot read config: {e.why}{hint}") from None


def _table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    tool = data.get("tool")
    table = tool.get("cutlint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.cutlint] must be a table")
    return table


def _error(path: Path, where: str, err: ValidationError) -> ConfigError:
    lines = []
    for e in err.errors():
        key = ".".join(str(p) for p in e["loc"]) or "(table)"
        if e["type"] == "extra_forbidden":
            known = ", ".join(sorted(f.alias or n for n, f in Config.model_fields.items()))
            lines.append(f"unknown key {key!r} (known keys: {known})")
        elif e["type"] in ("tuple_type", "list_type"):
            lines.append(f"{key}: must be a list of strings")
        else:
            lines.append(f"{key}: {e['msg'].removeprefix('Value error, ')}")
    return ConfigError(f"{path}: {where}: " + "; ".join(lines))


def _validate(path: Path, table: dict[str, Any], where: str) -> Config:
    try:
        config = Config.model_validate(table)
    except ValidationError as e:
        raise _error(path, where, e) from None
    if config.cutlass_version is not None:
        loaded = LoadedConfig(config, path)
        candidate = loaded.resolve(config.cutlass_version)
        try:
            check_cutlass_version(
                str(candidate) if is_directory(candidate) else config.cutlass_version
            )
        except ValueError as e:
            raise ConfigError(f"{path}: {where}: cutlass-version: {e}") from None
    return config


def load(path: Path) -> LoadedConfig:
    """`--config FILE`: its `[tool.cutlint]` table, or its top level if it has no `tool` table
    (a cutlint.toml)."""
    data = _read_toml(path)
    table = _table(path, data)
    if table is not None:
        return LoadedConfig(_validate(path, table, "[tool.cutlint]"), path)
    if path.name == "pyproject.toml" or "tool" in data:
        raise ConfigError(f"{path}: no [tool.cutlint] table")
    return LoadedConfig(_validate(path, data, "top level"), path)


_FOUND = (
    " (found while looking for [tool.cutlint] from the current directory upward: fix it, or pass"
    " --config FILE or --no-config)"
)


def discover(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.cutlint] table, from `start` upward."""
    start = start.resolve()
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if (
            inputs.is_regular(candidate)
            and _table(candidate, _read_toml(candidate, _FOUND)) is not None
        ):
            return candidate
    return None


def find(
    explicit: Path | None = None, *, use_files: bool = True, cwd: Path | None = None
) -> LoadedConfig:
    """The config `cutlint check` runs with: `--config`, else discovery, else the defaults."""
    if not use_files:
        return LoadedConfig(DEFAULTS)
    if explicit is not None:
        return load(explicit)
    found = discover(cwd or Path.cwd())
    return load(found) if found else LoadedConfig(DEFAULTS)
