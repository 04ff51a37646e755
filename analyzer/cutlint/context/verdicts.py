"""What a resolved context lets a verdict rest on: which deciding fields were guessed, and why
the GPU never loads a build's code. Text only; the engine decides the verdicts."""

from __future__ import annotations

from cutlint.build_context import BuildContext, Origin, Sourced


def cutlass_source(build: BuildContext) -> Sourced[object] | None:
    """Where the CUTLASS version came from: its own field, else the producer release that
    vendors it (the engine's release table), else nothing (cutlint's newest modeled)."""
    if build.cutlass_version is not None:
        return build.cutlass_version  # type: ignore[return-value]
    if build.release is not None and build.producer and build.producer.value == "flashinfer":
        return build.release  # type: ignore[return-value]
    return None


def guesses(build: BuildContext, gpu: str, cutlass: str) -> tuple[tuple[str, str], ...]:
    """The deciding fields that were only guessed, (field, what was assumed and the flag that
    settles it): `gpu` decides every verdict, `cutlass` those of the resource model."""
    out: list[tuple[str, str]] = []
    if build.gpu is not None and build.gpu.guessed:
        how = "read off the path" if build.gpu.origin is Origin.LAYOUT else "cutlint's default"
        out.append(("gpu", f"the GPU is {gpu} ({how}; --arch or -p BUILD_DIR settles it)"))
    source = cutlass_source(build)
    if source is None or source.guessed:
        how = (
            f"from FlashInfer {build.release.value} read off the path"
            if source is not None and build.release is not None
            else "the newest modeled"
        )
        out.append(
            (
                "cutlass",
                f"CUTLASS is {cutlass} ({how}; --cutlass-version or -p BUILD_DIR settles it)",
            )
        )
    return tuple(out)


def not_loaded(build: BuildContext, gpu: str) -> str:
    """Why the GPU runs none of the build's code objects for a file."""
    assert build.targets is not None
    names = ", ".join(t.name for t in build.targets.value)
    return (
        f"the build compiles it for {names} ({build.targets.where}), none of which loads on {gpu}"
    )
