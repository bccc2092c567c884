#!/usr/bin/env bash
# Builds MPD 0.24 (0.24.13, the oracle of the differential tests and of the randomized tag test) from an MPD source
# tree, with the plugins of Debian's MPD package where the tests touch them: the same decoders (mpg123 and libmad
# for MP3, libid3tag for ID3, FLAC, Vorbis, Opus, sndfile, DSD, faad, mpcdec, WavPack, FFmpeg), the playlist plugins
# (cue, expat for xspf/asx/rss), the curl input and the curl, NFS and SMB storage plugins. Not part of `make test`:
# Debian has no MPD 0.24 package, and MPD's source is not ours to ship.
#
#   scripts/build-mpd-0.24.sh MPD_SOURCE_DIR [BUILD_DIR]     # then MPD_BIN=BUILD_DIR/mpd swift test …
#
# Left out: ALSA, PipeWire, PulseAudio and systemd (the tests use null/file outputs), UPnP, udisks, zeroconf.
set -euo pipefail
source_dir="${1:?usage: $0 MPD_SOURCE_DIR [BUILD_DIR]}"
build_dir="$(realpath -m "${2:-$source_dir/build}")"
sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends meson ninja-build g++ pkg-config \
    libfmt-dev libpcre2-dev libicu-dev libsqlite3-dev libid3tag0-dev libmad0-dev libmpg123-dev libflac-dev \
    libvorbis-dev libopus-dev libogg-dev libsndfile1-dev libwavpack-dev libfaad-dev libmpcdec-dev libexpat1-dev \
    libcurl4-openssl-dev libnfs-dev libsmbclient-dev zlib1g-dev libavformat-dev libavcodec-dev libavutil-dev \
    >/dev/null
cd "$source_dir"
meson setup "$build_dir" --buildtype=release -Db_ndebug=true -Dauto_features=disabled --wrap-mode=nofallback \
    -Ddatabase=true -Dsqlite=enabled -Dicu=enabled -Dpcre=enabled -Dexpat=enabled -Dzlib=enabled -Dcue=true \
    -Did3tag=enabled -Dmpg123=enabled -Dmad=enabled -Dflac=enabled -Dvorbis=enabled -Dopus=enabled \
    -Dsndfile=enabled -Dwavpack=enabled -Dfaad=enabled -Dmpcdec=enabled -Dffmpeg=enabled -Ddsd=true \
    -Dcurl=enabled -Dnfs=enabled -Dsmbclient=enabled -Dneighbor=true \
    -Dfifo=true -Dpipe=true -Dhttpd=true -Drecorder=false \
    -Dalsa=disabled -Dsystemd=disabled -Ddocumentation=disabled -Dtest=false
ninja -C "$build_dir"
"$build_dir/mpd" --version | head -1
