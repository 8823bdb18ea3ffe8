"""torch's device-backend autoload entry point for torchtpu.

``import torch`` calls :func:`load` (entry point group ``torch.backends``), so that
plain ``import torch`` registers the "tpu" device. It never raises: an exception
here would make ``import torch`` itself fail and leave PyTorch half-initialized
for the rest of the process. A problem becomes a warning instead, and
``import torchtpu`` raises it again with its traceback.
"""

from __future__ import annotations

import warnings


def load() -> None:
    """Import torchtpu (registering "tpu"); warn instead of raising."""
    try:
        import torchtpu  # noqa: F401
    except Exception as e:  # noqa: BLE001 - nothing may escape into `import torch`
        warnings.warn(
            f"torchtpu was not loaded ({type(e).__name__}: {e}); the 'tpu' device is not "
            "available. `import torchtpu` shows the full error; TORCH_DEVICE_BACKEND_AUTOLOAD=0 "
            "turns the autoload off.",
            RuntimeWarning,
            stacklevel=2,
        )
