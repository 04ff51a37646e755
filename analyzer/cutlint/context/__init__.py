"""A file's build context, resolved once from the strongest evidence at hand.

The order: the user's flags > the compile command (`compile_commands.json`, FlashInfer's JIT
`build.ninja`, `--compile-command`) > the headers on its include path (`cutlass/version.h`, the
producer's version file) > the installed packages > the directory layout > cutlint's default.
Every field says where it came from (`Origin`); a context whose deciding fields were only guessed
(layout or default) yields notes, never a failure (`BuildContext.guessed`).

This package sits below families and the engine: it knows no family.
"""

from cutlint.build_context import BuildContext, Origin, Sourced, Target

__all__ = ["BuildContext", "Origin", "Sourced", "Target"]
