"""An update file for the settings page (docs/pi.md "Updates"; station/updates.py): every wheel
in a folder (image/wheels.sh made them) with their manifest, as ``station-update-<version>.tar.gz``.

    python image/update_file.py WHEELS OUT_FOLDER
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from station import __version__  # noqa: E402
from station.updates import write_update  # noqa: E402


def main() -> None:
    wheels, out = Path(sys.argv[1]), Path(sys.argv[2])
    path = out / f"station-update-{__version__}.tar.gz"
    with open(path, "wb") as written:
        manifest = write_update(written, sorted(wheels.glob("*.whl")), __version__)
    print(f"{path}: the station {__version__}, {len(manifest['files'])} wheels, {path.stat().st_size // 1024**2} MB")


if __name__ == "__main__":
    main()
