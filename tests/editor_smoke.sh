#!/usr/bin/env bash
# Smoke test of the node editor under a virtual X server (Xvfb, Mesa llvmpipe GL):
# opens graphs/dam_break_2d.ron, plays FRAMES frames, saves a screenshot of the window
# (egui's ViewportCommand::Screenshot, written by the editor itself) and quits; then checks
# that the PNG exists and is not blank (many distinct colours, liquid-blue particles visible).
#
# usage: tests/editor_smoke.sh [OUT.png]
# env:   FRAMES (20), PROFILE (release | debug), CARGO_TARGET_DIR, EDITOR_BIN (skip the build),
#        GRAPH (graphs/dam_break_2d.ron), EXTRA_ARGS (e.g. "--overlay level-set", or "--compare"
#        with GRAPH=graphs/lcp_circle_2d.ron for the compare mode with its saved variants)
# needs: xvfb-run (apt-get install -y xvfb xauth libgl1-mesa-dri libegl1), python3
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
profile=${PROFILE:-release}
frames=${FRAMES:-20}
graph=${GRAPH:-graphs/dam_break_2d.ron}
out=${1:-$target/editor_smoke.png}

if ! command -v xvfb-run >/dev/null; then
    echo "SKIP: xvfb-run not found (apt-get install -y xvfb xauth libgl1-mesa-dri libegl1)" >&2
    exit 77
fi

if [[ -z "${EDITOR_BIN:-}" ]]; then
    flags=()
    [[ $profile == release ]] && flags=(--release)
    # The editor and the solver plugins it loads from its own folder.
    cargo build "${flags[@]}" -p flip-editor -p flipgraph-pcg -p flipgraph-multigrid \
        -p flipgraph-direct -p flipgraph-lcp
    EDITOR_BIN=$target/$profile/flipgraph-editor
fi

rm -f "$out"
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086
LIBGL_ALWAYS_SOFTWARE=1 timeout 600 xvfb-run -a -s "-screen 0 1600x900x24" \
    "$EDITOR_BIN" "$graph" --autoplay --quit-after-frames "$frames" \
    --screenshot "$out" --size 1600x900 ${EXTRA_ARGS:-}

[[ -s $out ]] || { echo "FAIL: no screenshot at $out" >&2; exit 1; }

python3 - "$out" <<'EOF'
import struct, sys, zlib

def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, "unexpected PNG layout"
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = read_png(sys.argv[1])
colours, blue = set(), 0
for row in rows:
    for x in range(0, w * bpp, bpp):
        r, g, b = row[x], row[x + 1], row[x + 2]
        colours.add((r, g, b))
        blue += b > 150 and b > r + 60
print(f"screenshot {w}x{h}: {len(colours)} distinct colours, {blue} liquid-blue pixels")
if len(colours) < 50:
    sys.exit("FAIL: screenshot looks blank")
if blue < 2000:
    sys.exit("FAIL: no particles visible")
print("OK")
EOF
