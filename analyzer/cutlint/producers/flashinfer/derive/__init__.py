"""Reading facts out of a flashinfer-python wheel, for derive_releases (not used at check time).

wheel.py finds and opens a release's wheel, cpp.py reads the C++ of its launchers (comments,
preprocessor, blocks, conditions), launcher.py and jit.py pick the facts, toml_out.py writes them.
"""

SM_VERSIONS = (75, 80, 86, 89, 90, 100, 101, 103, 107, 110, 120, 121)
"""Device compute capabilities (major * 10 + minor) the derived tables are evaluated for: the
`gemm_config.sm_version` a launcher switches on, the `device_arch` fused_moe/core.py computes."""
