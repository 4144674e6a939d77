#!/bin/bash
# mmdebstrap's customize hook for the station image (image/build.sh): the station installed and
# enabled in the new root ($1), from the wheels in $2.
set -euo pipefail
root=$1
wheels=$2
here=$(cd "$(dirname "$0")" && pwd)
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }  # none of this machine's settings

cp -a "$here/rootfs/." "$root/"

# The station's own user: its data partition is its home; the hub's serial port (dialout), the
# camera (video) and smart dice (bluetooth) are its groups.
in_root useradd --system --home-dir /var/lib/station --no-create-home --shell /usr/sbin/nologin \
	--groups dialout,video,bluetooth station
install -d -o "$(in_root id -u station)" -g "$(in_root id -g station)" -m 0750 "$root/var/lib/station"

mkdir -p "$root/tmp/wheels" && cp "$wheels"/*.whl "$root/tmp/wheels/"
in_root python3 -m venv /opt/station
in_root /opt/station/bin/pip install --quiet --no-index --find-links /tmp/wheels --no-cache-dir station
rm -rf "$root/tmp/wheels"
in_root /opt/station/bin/python - <<'EOF'
from pathlib import Path
from station.service import UNIT_NAME, ServiceSpec, unit_text

spec = ServiceSpec(
    user="station",
    working_dir=Path("/var/lib/station"),
    station=Path("/usr/local/bin/station-launch"),  # the installed update's version, else the image's
    data=Path("/var/lib/station/data"),
    port=80,
    config=Path("/var/lib/station/config.json"),
    updates=Path("/var/lib/station/versions"),
)
Path("/etc/systemd/system", UNIT_NAME).write_text(unit_text(spec), encoding="utf-8")
EOF
in_root systemctl enable station.service station-network.service station-grow-data.service
echo station > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tstation\n' > "$root/etc/hosts"

# The overlay in the initramfs, and the kernel, initramfs and cmdline.txt on the boot partition
# (raspi-firmware's kernel hook writes those from /etc/default/raspi-firmware).
# build.sh put update-initramfs aside while the packages were set up (each package's trigger
# would have made it again, five minutes each through qemu): it is made once, here.
grep -qx overlay "$root/etc/initramfs-tools/modules" || echo overlay >> "$root/etc/initramfs-tools/modules"
rm "$root/usr/sbin/update-initramfs"
in_root dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
in_root update-initramfs -c -k all
# The root read-only from the start (raspi-firmware writes "rw"; the overlay keeps it unwritten).
sed -i 's/ rw / ro /' "$root/boot/firmware/cmdline.txt"
grep -q ' ro ' "$root/boot/firmware/cmdline.txt" || { echo "customize.sh: no 'ro' in cmdline.txt" >&2; exit 1; }

# What is made at a boot is not baked into every card: a machine id (systemd makes one), the
# package lists, the caches.
: > "$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
