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
    settles it): `gpu` decides every verdict, `cutlass` those of the resource model, `release`
    those of the launcher's dispatch (its tile lists and tactic tables are the release's own:
    `moe_gemm_template_dispatch_tma_ws.h` `are_tile_shapes_supported_sm100/sm120`)."""
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
    release = release_guess(build)
    if release is not None:
        out.append(("release", release))
    return tuple(out)


def release_guess(build: BuildContext) -> str | None:
    """What was assumed of the producer's release when no file or flag said it (None: one
    did). Only FlashInfer's and TensorRT-LLM's launchers have dispatch tables; a
    cutlass_library build has none to guess."""
    producer = build.producer.value if build.producer is not None else None
    if producer == "cutlass_library":
        return None
    settle = "--flashinfer-version, or the JIT cache's build file (cached_ops/<module>/build.ninja) or -p BUILD_DIR, settles it"
    if build.release is None:
        return (
            f"the launcher's dispatch tables are the newest modeled (no release is known; {settle})"
        )
    if build.release.guessed:
        how = "read off the path" if build.release.origin is Origin.LAYOUT else "cutlint's default"
        return f"the release is {build.release.value} ({how}; {settle})"
    return None


def not_loaded(build: BuildContext, gpu: str) -> str:
    """Why the GPU runs none of the build's code objects for a file."""
    assert build.targets is not None
    names = ", ".join(t.name for t in build.targets.value)
    return (
        f"the build compiles it for {names} ({build.targets.where}), none of which loads on {gpu}"
    )
