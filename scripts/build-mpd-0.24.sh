#!/usr/bin/env bash
# Builds the MPD 0.24 that recorded Tests/DifferentialTests/Scripts/recorded/ (MPD 0.24.9), from an MPD source
# tree, with the plugins the differential scripts touch and libmad as the MP3 decoder (as Debian's MPD 0.23, the
# everyday oracle, decodes MP3). Not part of `make test`: Debian has no MPD 0.24 package.
#
#   scripts/build-mpd-0.24.sh MPD_SOURCE_DIR [BUILD_DIR]     # then MPD_BIN=BUILD_DIR/mpd swift test …
#
# Left out, so the scripts that need them differ from Debian's build: storage and neighbor plugins (`mount`,
# `unmount`, `listneighbors`), expat (the xspf and asx playlist plugins), ALSA and systemd.
set -euo pipefail
source_dir="${1:?usage: $0 MPD_SOURCE_DIR [BUILD_DIR]}"
build_dir="$(realpath -m "${2:-$source_dir/build}")"
apt-get install -y meson ninja-build g++ libfmt-dev libpcre2-dev libicu-dev libsqlite3-dev libid3tag0-dev \
    libmad0-dev libflac-dev libvorbis-dev libopus-dev libsndfile1-dev libwavpack-dev \
    libavformat-dev libavcodec-dev libavutil-dev >/dev/null
cd "$source_dir"
meson setup "$build_dir" --buildtype=release -Db_ndebug=true -Dauto_features=disabled \
    -Ddatabase=true -Dsqlite=enabled -Dicu=enabled -Dpcre=enabled -Did3tag=enabled \
    -Dmad=enabled -Dmpg123=disabled -Dflac=enabled -Dvorbis=enabled -Dopus=enabled -Dsndfile=enabled \
    -Dwavpack=enabled -Dffmpeg=enabled -Ddsd=true -Dfifo=true -Dpipe=true -Dhttpd=true \
    -Dalsa=disabled -Dsystemd=disabled -Ddocumentation=disabled -Dtest=false
ninja -C "$build_dir"
"$build_dir/mpd" --version | head -1
