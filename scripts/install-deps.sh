#!/usr/bin/env bash
# Installs the Debian packages NoSignal needs, only those missing.
#   scripts/install-deps.sh build   — libraries to build and run
#   scripts/install-deps.sh test    — plus what the tests drive (real MPD, mpc, ncmpcpp, python-mpd2, ffmpeg, …)
set -euo pipefail
build=(libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libid3tag0-dev libmpg123-dev libasound2-dev libcurl4-openssl-dev
       libsqlite3-dev libssl-dev libqrencode-dev libicu-dev libavahi-client-dev pkg-config)
test=(ffmpeg sqlite3 alsa-utils mpd mpc ncmpcpp python3-mpd sox tmux openssl qrencode
      python3-mutagen eyed3 id3v2 flac vorbis-tools atomicparsley wavpack kid3-cli opus-tools id3tool musepack-tools curl chromium chromium-driver python3-selenium
      avahi-daemon avahi-utils dbus systemd snapserver snapclient python3-pyftpdlib)
want=("${build[@]}")
[ "${1:-build}" = test ] && want+=("${test[@]}")
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
# Debian's mpd package would start a system MPD on port 6600; keep services from starting during the install.
policy=/usr/sbin/policy-rc.d; created_policy=0
if [ ! -e $policy ]; then printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy >/dev/null; $sudo chmod +x $policy; created_policy=1; fi
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
[ $created_policy = 1 ] && $sudo rm -f $policy
exit 0
