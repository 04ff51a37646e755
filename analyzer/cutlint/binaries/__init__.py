"""Reading the kernels' resources from the binaries a build produced.

A CUDA build embeds its device code as cubins (ELF, machine EM_CUDA) inside a fatbin container,
in the `.nv_fatbin` section of objects, shared libraries and executables (`__nv_relfatbin` for
relocatable device code); a cubin records, per kernel, the registers ptxas allocated, the stack
frame, the launch bounds and the static shared memory. This package reads them directly, with the
standard library only (and `zstandard`, when installed, for compressed fatbin entries), so that it
runs where the CUDA toolkit does not; the toolkit's `cuobjdump` is a fallback, not a requirement.

It is an input stage of its own: files in, `KernelImage` records out, nothing of the model.
"""
