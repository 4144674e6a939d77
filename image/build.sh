#!/bin/bash
# The station as an SD-card image for the Raspberry Pi 4 and 5 (docs/pi.md "The station image"),
# built with Debian's own tools from Debian's packages: mmdebstrap makes an arm64 Debian 12 root
# (run through qemu-user-static where the build machine is not arm64), the station goes into a
# virtual environment from the exact wheels of image/requirements.txt, and the card's three
# partitions are made from folders (mkfs.vfat with mtools, mkfs.ext4 -d): no loop devices, no
# mounts, so it builds in a container too.
#
#   image/build.sh [OUT]      (OUT: build/image by default; make image runs it)
#
# OUT/station.img            the card: boot (FAT, 256 MiB), root (ext4, read-only at run time),
#                            data (ext4, 256 MiB, grown to the card's size at the first boot)
# OUT/vmlinuz, OUT/initrd.img the image's kernel, for the qemu check (make image-test)
# OUT/station.img.sha256     its checksum;  OUT/build.log  every step's output
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
out=${1:-$repo/build/image}
suite=bookworm
boot_mib=256
data_mib=256

say() { printf '\n== %s\n' "$*" >&2; }
fail() { printf 'image/build.sh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run it as root (sudo make image): mmdebstrap and mkfs.ext4 -d keep the files' owners"
for tool in mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk; do
	command -v "$tool" >/dev/null || fail "$tool is missing: apt-get install mmdebstrap e2fsprogs dosfstools mtools fdisk qemu-user-static binfmt-support"
done
if [ "$(dpkg --print-architecture)" != arm64 ]; then  # run arm64 programs through qemu
	[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
		|| fail "binfmt_misc cannot be mounted: arm64 programs cannot run on this machine"
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 \
		|| fail "qemu-aarch64 is not registered with binfmt_misc (apt-get install qemu-user-static binfmt-support)"
fi

mkdir -p "$out"
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$repo/pyproject.toml")

say "the station's wheels (the station $version and image/requirements.txt, for linux aarch64)"
"$here/wheels.sh" "$work/wheels"

say "Debian $suite arm64 with $(grep -cv '^\s*\(#\|$\)' "$here/packages.txt") packages (image/packages.txt)"
packages=$(grep -v '^\s*\(#\|$\)' "$here/packages.txt" | paste -sd, -)
mmdebstrap --arch=arm64 --variant=minbase --components="main non-free-firmware" --include="$packages" \
	--setup-hook='mkdir -p "$1/boot/firmware"' \
	--essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs && ln -s /bin/true "$1/usr/sbin/update-initramfs"' \
	--customize-hook="\"$here/customize.sh\" \"\$1\" \"$work/wheels\"" \
	"$suite" "$work/root"

say "the partitions"
root=$work/root
mkdir -p "$work/boot" "$work/data"
mv "$root"/boot/firmware/* "$work/boot/"
cp "$here/boot/station.txt" "$work/boot/station.txt"
cp "$root"/boot/vmlinuz-* "$out/vmlinuz"
cp "$root"/boot/initrd.img-* "$out/initrd.img"
cp -a "$root/var/lib/station/." "$work/data/" && find "$root/var/lib/station" -mindepth 1 -delete  # a mount point

mkfs.vfat -n STATIONBOOT -i 57a71000 -C "$work/boot.vfat" $((boot_mib * 1024)) >/dev/null
mcopy -s -m -i "$work/boot.vfat" "$work/boot"/* ::/
root_mib=$(( $(du -sm "$root" | cut -f1) * 125 / 100 + 64 ))
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -L station-root -U 5a7a1000-0000-4000-8000-000000000001 \
	-E hash_seed=5a7a1000-0000-4000-8000-000000000002 -d "$root" "$work/root.ext4" "${root_mib}M"
E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH mkfs.ext4 -q -L station-data -U 5a7a1000-0000-4000-8000-000000000003 \
	-E hash_seed=5a7a1000-0000-4000-8000-000000000004 -d "$work/data" "$work/data.ext4" "${data_mib}M"
owner=$(stat -c '%u %g' "$root/var/lib/station")  # the data partition's top is the station user's
debugfs -w -R "sif / uid ${owner% *}" "$work/data.ext4" >/dev/null 2>&1
debugfs -w -R "sif / gid ${owner#* }" "$work/data.ext4" >/dev/null 2>&1
debugfs -w -R "sif / mode 040750" "$work/data.ext4" >/dev/null 2>&1

say "the card"
start=4  # MiB: the partitions begin aligned, as SD cards' erase blocks like
total=$((start + boot_mib + root_mib + data_mib))
image=$out/station.img
rm -f "$image" && truncate -s "${total}M" "$image"
sfdisk --quiet "$image" <<EOF
label: dos
label-id: 0x57a71000
start=$((start * 2048)), size=$((boot_mib * 2048)), type=c, bootable
start=$(((start + boot_mib) * 2048)), size=$((root_mib * 2048)), type=83
start=$(((start + boot_mib + root_mib) * 2048)), size=$((data_mib * 2048)), type=83
EOF
dd if="$work/boot.vfat" of="$image" bs=1M seek=$start conv=notrunc,sparse status=none
dd if="$work/root.ext4" of="$image" bs=1M seek=$((start + boot_mib)) conv=notrunc,sparse status=none
dd if="$work/data.ext4" of="$image" bs=1M seek=$((start + boot_mib + root_mib)) conv=notrunc,sparse status=none
(cd "$out" && sha256sum station.img > station.img.sha256)
say "$image: $total MiB (boot $boot_mib, root $root_mib, data $data_mib; $(du -sm "$image" | cut -f1) MiB written), $(cut -c1-16 "$out/station.img.sha256")…"
