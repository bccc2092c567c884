#!/usr/bin/env bash
# make demo — NoSignal with a fake NetEase account, offline.
# Starts the fake NetEase server (demo catalog, QR codes that scan themselves after a few seconds) and NoSignal
# pointed at it, on 127.0.0.1:6600. In another terminal:
#   .build/debug/nosignal login --config "$DEMO/nosignal.conf"     # the QR flow; prints demo_user
#   mpc update NetEase; mpc ls NetEase/Playlists; mpc search any 夏日; mpc add netease://album/3001; mpc playlist
#   mpc add netease://fm; mpc play; mpc sticker netease://song/5000012 set liked 1
# Everything lives in a temporary directory that is removed on exit (Ctrl-C).
set -euo pipefail
BIN=${BIN:-.build/debug}
DEMO=$(mktemp -d /tmp/nosignal-demo-XXXXXX)
trap 'kill $FAKE 2>/dev/null || true; rm -rf "$DEMO"' EXIT
FAKE_PORT=${FAKE_PORT:-8990}
"$BIN/fake-netease" --port "$FAKE_PORT" --key "$DEMO/private.pem" --qr-auto > "$DEMO/fake.log" 2>&1 &
FAKE=$!
for _ in $(seq 1 50); do grep -q '^public key ' "$DEMO/fake.log" 2>/dev/null && break; sleep 0.1; done
PUBLIC=$(sed -n 's/^public key //p' "$DEMO/fake.log")
mkdir -p "$DEMO/music"
cat > "$DEMO/nosignal.conf" <<CONF
music_directory "$DEMO/music"
data_directory "$DEMO/data"
bind_to_address "127.0.0.1"
port "6600"
netease {
    api_url "http://127.0.0.1:$FAKE_PORT"
    eapi_url "http://127.0.0.1:$FAKE_PORT"
    weapi_public_key "$PUBLIC"
}
CONF
echo "fake NetEase on 127.0.0.1:$FAKE_PORT; log in with:"
echo "  $BIN/nosignal login --config $DEMO/nosignal.conf"
echo "then: mpc update NetEase; mpc ls NetEase/Playlists; mpc search any 夏日; mpc add netease://album/3001"
echo "      mpc add netease://fm; mpc play; mpc sticker netease://song/5000012 set liked 1"
"$BIN/nosignal" --config "$DEMO/nosignal.conf"
