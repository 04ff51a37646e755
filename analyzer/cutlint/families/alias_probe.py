"""What `cutlint verify` builds for the families whose kernels are `using` chains
(`cutlass-alias`: the cutlass_library CUTLASS 2.x families and the CollectiveBuilder families):
each kernel file compiled as written, followed by the C++ of data/alias_probe.hpp, which prints
each kernel type's numbers from a `main()`. The registry maps those families' probe to this
module (registry.SHARED_PROBES); verify's runner (cutlint.verify.alias_probe) builds and reads
it and imports no family."""

from __future__ import annotations

from importlib import resources

PROBE_HPP = "alias_probe.hpp"
"""The name the probe's C++ has beside the translation unit that includes it."""
PROBE_CPP = resources.files("cutlint.families").joinpath("data", PROBE_HPP).read_text()
"""The probe's C++: every member looked for, not assumed, so one probe serves CUTLASS 2.x and
3.x kernels and the device-level types."""
