#!/usr/bin/env bash
# End-to-end test driver for the `vdla` command-line tool.
#
#   bash cli_test.sh VDLA TMPDIR CASE [ARGS...]
#
# VDLA is the tool, TMPDIR a scratch directory owned by this test (emptied
# first). CASE selects one check; see the `case` at the bottom. Test data lives
# in data/ next to this script. JSON is checked with the system python
# (standard library only). The script exits 0 when the check passes and 1 with a
# FAIL line (plus the tool's output) when it does not.
#
# The generic case is
#
#   expect RC [stdout:REGEX | stderr:REGEX | nostdout]... -- VDLA-ARGS...
#
# which runs `VDLA VDLA-ARGS...` and requires the exit status to be exactly RC
# (so a crash, which exits with 128+signal, never passes) and every REGEX
# (grep -E) to match the named stream. "@TMP@" in VDLA-ARGS becomes TMPDIR.
set -u

if [ $# -lt 3 ]; then
  echo "usage: bash cli_test.sh VDLA TMPDIR CASE [ARGS...]" >&2
  exit 2
fi
VDLA=$1
TMP=$2
CASE=$3
shift 3
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data
SHIPPED=$(cd "$DATA/../../.." && pwd)/vdla_hw/config  # the repository's config files
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
CONFIGS=$(cd "$SHIPPED" && ls -- *.json | sed "s/\.json$//" | sort | tr "\n" " ")  # every shipped config

rm -rf "$TMP"
mkdir -p "$TMP" || exit 1

# ---------------------------------------------------------------- helpers

RC=0
OUT=$TMP/stdout
ERR=$TMP/stderr

# run ARGS...: runs the tool; stdout/stderr land in $OUT/$ERR, the status in RC.
run() {
  "$VDLA" "$@" >"$OUT" 2>"$ERR"
  RC=$?
}

show() {
  echo "---- command: vdla $LAST_ARGS (exit $RC)" >&2
  echo "---- stdout:" >&2
  head -c 4000 "$OUT" >&2
  echo "---- stderr:" >&2
  head -c 4000 "$ERR" >&2
}

fail() {
  echo "FAIL [$CASE]: $*" >&2
  [ -f "$OUT" ] && show
  exit 1
}

LAST_ARGS=""
# must RC ARGS...: runs the tool and fails unless it exits with exactly RC.
must() {
  local want=$1
  shift
  LAST_ARGS="$*"
  run "$@"
  [ "$RC" -eq "$want" ] || fail "expected exit status $want, got $RC"
}

# match FILE REGEX: fails unless REGEX (grep -E) matches FILE.
match() {
  grep -Eq -e "$2" "$1" || fail "$(basename "$1") does not match /$2/"
}

# json PYTHON-CODE FILE [ARGS...]: runs the code with d = the parsed JSON of
# FILE and argv = ARGS; a failed assert fails the test.
json() {
  local code=$1 file=$2
  shift 2
  "$PY" - "$file" "$@" <<EOF || fail "JSON check failed on $(basename "$file")"
import json, sys
with open(sys.argv[1]) as f:
    d = json.load(f)
argv = sys.argv[2:]
$code
EOF
}

# hash_of CONFIG: the config's hash as `config show --json` reports it.
hash_of() {
  "$VDLA" config show "$1" --json | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["derived"]["hash"])'
}

# ---------------------------------------------------------------- cases

case_expect() {
  [ $# -ge 2 ] || fail "expect needs RC and --"
  local want=$1
  shift
  local checks=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    checks+=("$1")
    shift
  done
  [ "${1:-}" = "--" ] || fail "expect: missing -- before the tool's arguments"
  shift
  local args=()
  for a in "$@"; do args+=("${a//@TMP@/$TMP}"); done
  must "$want" ${args[@]+"${args[@]}"}
  for c in ${checks[@]+"${checks[@]}"}; do
    case "$c" in
      stdout:*) match "$OUT" "${c#stdout:}" ;;
      stderr:*) match "$ERR" "${c#stderr:}" ;;
      nostdout) [ ! -s "$OUT" ] || fail "expected no output on stdout" ;;
      *) fail "expect: bad check '$c'" ;;
    esac
  done
}

# config show NAME --json for every shipped config: valid JSON, derived
# quantities consistent with the hardware fields.
case_config_show_json() {
  must 0 config show pynq --json
  json '
m = d["derived"]["memories"]
assert d["name"] == "pynq", d["name"]
assert m["INP"]["depth"] == 4096, m["INP"]
assert m["INP"]["entry_bytes"] == 16 and m["INP"]["index_bits"] == 12, m["INP"]
assert d["derived"]["macs_per_cycle"] == 256
' "$OUT"
  must 0 config show tiny --json
  json '
g = d["gemm"]
assert (g["batch"], g["block_in"], g["block_out"]) == (2, 4, 8), g
m = d["derived"]["memories"]
want = {"UOP": (4, 256), "WGT": (32, 64), "INP": (8, 128), "ACC": (64, 64), "OUT": (16, 64)}
for mem, (entry, depth) in want.items():
    assert (m[mem]["entry_bytes"], m[mem]["depth"]) == (entry, depth), (mem, m[mem])
' "$OUT"
  for c in $CONFIGS; do
    must 0 config show "$c" --json
    cp "$OUT" "$TMP/$c.json"
    json '
b, g = d["buffers_kib"], d["gemm"]
m = d["derived"]["memories"]
assert d["name"] == argv[0]
assert len(d["derived"]["hash"]) == 16 and int(d["derived"]["hash"], 16) >= 0
assert m["INP"]["entry_bytes"] == g["batch"] * g["block_in"]
assert m["WGT"]["entry_bytes"] == g["block_in"] * g["block_out"]
assert m["INP"]["depth"] * m["INP"]["entry_bytes"] == b["input"] * 1024
assert m["ACC"]["depth"] == m["OUT"]["depth"]
for mem in m.values():
    assert 2 ** mem["index_bits"] >= mem["depth"]
' "$TMP/$c.json" "$c"
    # The text form names the config and its hash too.
    local h
    h=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["derived"]["hash"])' "$TMP/$c.json")
    must 0 config show "$c"
    match "$OUT" "^config $c \\(hash $h\\)"
    match "$OUT" "^  ext      "  # the datapath extensions, or none
    # A shipped file and the built-in of the same name are the same config.
    must 0 config show "$SHIPPED/$c.json" --json
    json 'assert d["derived"]["hash"] == argv[0], (d["derived"]["hash"], argv[0])' "$OUT" "$h"
  done
}

# config list --json: every shipped config, with the hashes `show` reports.
case_config_list_json() {
  must 0 config list --json
  cp "$OUT" "$TMP/list.json"
  json '
names = [c["name"] for c in d]
assert sorted(names) == sorted(argv[0].split()), (names, argv[0])
assert "pynq" in names and "pynq-classic" in names, names
assert len(set(c["hash"] for c in d)) == len(d), "hashes are not distinct"
' "$TMP/list.json" "$CONFIGS"
  for c in $CONFIGS; do
    json 'assert {x["name"]: x["hash"] for x in d}[argv[0]] == argv[1]' "$TMP/list.json" "$c" "$(hash_of "$c")"
  done
  must 0 config list
  local n
  n=$(wc -w <<<"$CONFIGS")
  [ "$(wc -l <"$OUT")" -eq "$n" ] || fail "config list prints $(wc -l <"$OUT") lines, expected $n"
}

# config check over good and bad files: exit 1 if any is bad, every file reported.
case_config_check_mixed() {
  local good=$SHIPPED/tiny.json bad=$DATA/config/bad_missing_field.json
  must 1 config check "$good" "$bad" pynq
  match "$OUT" "tiny.json: ok"
  match "$OUT" "^pynq: ok"
  match "$ERR" "bad_missing_field.json: field 'gemm.block_out': is missing"
  must 1 config check --json "$good" "$bad"
  json '
assert len(d) == 2, d
assert d[0]["ok"] is True and d[0]["name"] == "tiny", d[0]
assert d[1]["ok"] is False and "gemm.block_out" in d[1]["error"], d[1]
assert d[1]["file"].endswith("bad_missing_field.json"), d[1]
' "$OUT"
  must 0 config check --json $CONFIGS
  json 'assert [c["ok"] for c in d] == [True] * len(argv[0].split()), d' "$OUT" "$CONFIGS"
}

# asm -> disasm -> asm gives a byte-identical program file, and disassembling
# that again gives the same text.
case_asm_roundtrip() {
  local cfg=$1 src=$DATA/asm/all_kinds.s
  must 0 asm "$src" -o "$TMP/a.vprog" --config "$cfg"
  match "$OUT" "29 instructions for config $cfg"
  must 0 disasm "$TMP/a.vprog" --config "$cfg"
  cp "$OUT" "$TMP/a.s"
  match "$TMP/a.s" "^; .*a.vprog: 29 instructions, config $cfg \\(hash $(hash_of "$cfg")\\)"
  [ "$(grep -c '^[A-Z]' "$TMP/a.s")" -eq 29 ] || fail "disassembly does not have 29 instruction lines"
  must 0 asm "$TMP/a.s" -o "$TMP/b.vprog" --config "$cfg"
  cmp "$TMP/a.vprog" "$TMP/b.vprog" >&2 || fail "re-assembled disassembly differs from the original program"
  must 0 disasm "$TMP/b.vprog" --config "$cfg"
  diff <(tail -n +2 "$TMP/a.s") <(tail -n +2 "$OUT") >&2 || fail "disassembling twice gives different text"
  # Header: magic, version 1, count, then 16 bytes per instruction.
  [ "$(stat -c %s "$TMP/a.vprog")" -eq $((24 + 29 * 16)) ] || fail "program file is not 24 + 29*16 bytes"
  [ "$(head -c 7 "$TMP/a.vprog")" = "VDLAPRG" ] || fail "program file does not start with VDLAPRG"
}

# --raw: the bare stream is the program file minus its header, and round-trips.
case_asm_raw_roundtrip() {
  local cfg=$1 src=$DATA/asm/all_kinds.s
  must 0 asm "$src" -o "$TMP/a.vprog" --config "$cfg"
  must 0 asm "$src" --raw -o "$TMP/a.raw" --config "$cfg"
  [ "$(stat -c %s "$TMP/a.raw")" -eq $((29 * 16)) ] || fail "raw stream is not 29*16 bytes"
  cmp "$TMP/a.raw" <(tail -c +25 "$TMP/a.vprog") >&2 || fail "raw stream differs from the program file's payload"
  must 0 disasm --raw "$TMP/a.raw" --config "$cfg"
  cp "$OUT" "$TMP/a.s"
  must 0 asm --raw "$TMP/a.s" -o "$TMP/b.raw" --config "$cfg"
  cmp "$TMP/a.raw" "$TMP/b.raw" >&2 || fail "raw round trip is not byte-identical"
  # A raw stream is not a program file and vice versa.
  must 1 disasm "$TMP/a.raw" --config "$cfg"
  match "$ERR" "not a VDLA program file"
}

# disasm --json: valid JSON, one object per instruction with its fields.
case_disasm_json() {
  local cfg=$1
  must 0 asm "$DATA/asm/all_kinds.s" -o "$TMP/a.vprog" --config "$cfg"
  must 0 disasm "$TMP/a.vprog" --config "$cfg"
  grep '^[A-Z]' "$OUT" | sed 's/ *; [0-9]*$//' >"$TMP/text.txt"
  must 0 disasm --json "$TMP/a.vprog" --config "$cfg"
  json '
ins = d["instructions"]
assert d["config"] == argv[0] and d["hash"] == argv[1], (d["config"], d["hash"])
assert len(ins) == 29, len(ins)
with open(argv[2]) as f:
    text = [l.rstrip("\n") for l in f]
assert [i["text"] for i in ins] == text, "text fields differ from the plain disassembly"
ops = [i["opcode"] for i in ins]
assert ops.count("LOAD") == 7 and ops.count("GEMM") == 4 and ops.count("ALU") == 14, ops
assert ops.count("STORE") == 2 and ops.count("FINISH") == 2, ops
assert [i["module"] for i in ins[:3]] == ["compute", "load", "load"], ins[:3]
assert ins[2]["y_pad_top"] == 1 and ins[2]["x_pad_right"] == 1 and ins[2]["pop_next"] == 1, ins[2]
assert ins[5]["dram_base"] == 0xffffffff and ins[5]["y_size"] == 65535, ins[5]
assert ins[6]["dram_base"] == 8 and ins[6]["y_size"] == 16, ins[6]
assert ins[7]["reset"] == 1 and ins[7]["uop_end"] == 4 and ins[7]["iter_in"] == 3, ins[7]
assert ins[9]["uop_end"] == 511 and ins[9]["iter_out"] == 16383, ins[9]
assert [(i["use_imm"], i["imm"]) for i in ins[11:13]] == [(0, 0), (1, -1)], ins[11:13]
assert ins[20]["imm"] == -32768 and ins[24]["imm"] == 32767, (ins[20], ins[24])
assert ins[25]["module"] == "store" and ins[27]["pop_next"] == 1, ins[25]
assert ins[27]["module"] == "compute", ins[27]
' "$OUT" "$cfg" "$(hash_of "$cfg")" "$TMP/text.txt"
}

# asm --json summary.
case_asm_json() {
  must 0 asm "$DATA/asm/all_kinds.s" -o "$TMP/a.vprog" --config tiny --json
  json '
assert d["instructions"] == 29 and d["config"] == "tiny" and d["hash"] == argv[0], d
assert d["output"].endswith("a.vprog"), d
' "$OUT" "$(hash_of tiny)"
}

# A program assembled for tiny is refused by --config pynq, naming both hashes.
case_disasm_wrong_config() {
  must 0 asm "$DATA/asm/all_kinds.s" -o "$TMP/a.vprog" --config tiny
  must 1 disasm "$TMP/a.vprog" --config pynq
  match "$ERR" "a.vprog: program was encoded for hardware configuration $(hash_of tiny)"
  match "$ERR" "config 'pynq' has hash $(hash_of pynq)"
  match "$ERR" "--config"
  # exec refuses it the same way.
  must 1 exec "$TMP/a.vprog" --config pynq
  match "$ERR" "hash $(hash_of pynq)"
}

# Damaged program files and streams are refused with a clear message.
case_disasm_damaged() {
  must 0 asm "$DATA/asm/all_kinds.s" -o "$TMP/a.vprog" --config tiny
  head -c 100 "$TMP/a.vprog" >"$TMP/truncated.vprog"
  must 1 disasm "$TMP/truncated.vprog" --config tiny
  match "$ERR" "truncated.vprog: header announces 29 instructions \\(464 bytes\\) but 76 bytes follow \\(truncated"
  head -c 10 "$TMP/a.vprog" >"$TMP/short.vprog"
  must 1 disasm "$TMP/short.vprog" --config tiny
  match "$ERR" "short.vprog: not a VDLA program file"
  : >"$TMP/empty.vprog"
  must 1 disasm "$TMP/empty.vprog" --config tiny
  match "$ERR" "empty.vprog: not a VDLA program file"
  "$PY" -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 3)' >"$TMP/garbage.bin"
  must 1 disasm "$TMP/garbage.bin" --config tiny
  match "$ERR" "garbage.bin: not a VDLA program file \\(bad magic"
  # Unsupported version: patch the version word.
  "$PY" -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[8] = 7
open(sys.argv[2], "wb").write(b)' "$TMP/a.vprog" "$TMP/v7.vprog"
  must 1 disasm "$TMP/v7.vprog" --config tiny
  match "$ERR" "v7.vprog: program file version 7 is not supported"
  # Raw streams: a length that is not a multiple of 16, an unknown opcode, and
  # a FINISH with bits set outside its fields.
  must 1 disasm --raw "$TMP/garbage.bin" --config tiny
  match "$ERR" "garbage.bin: instruction 0: LOAD has bits set outside its fields"
  "$PY" -c 'import sys; sys.stdout.buffer.write(b"\xff" * 32)' >"$TMP/ones.raw"
  must 1 disasm --raw "$TMP/ones.raw" --config tiny
  match "$ERR" "ones.raw: instruction 0: unknown opcode 7"
  head -c 42 "$TMP/garbage.bin" >"$TMP/odd.raw"
  must 1 disasm --raw "$TMP/odd.raw" --config tiny
  match "$ERR" "odd.raw: instruction stream of 42 bytes is not a multiple of 16 \\(truncated"
  "$PY" -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<QQ", 4, 0) + struct.pack("<QQ", 4, 1 << 63))' \
    >"$TMP/corrupt.raw"
  must 1 disasm --raw "$TMP/corrupt.raw" --config tiny
  match "$ERR" "corrupt.raw: instruction 1: FINISH has bits set outside its fields"
  must 1 disasm "$TMP/missing.vprog" --config tiny
  match "$ERR" "missing.vprog: cannot open"
}

# An ALU instruction without use_imm but with immediate bits set decodes, but
# its disassembly drops the immediate, so the round trip is not byte-identical.
case_disasm_alu_imm_bits() {
  # ALU (opcode 3) ADD (alu_op 2 at bit 7), use_imm 0, imm = 5 at bit 80 (tiny).
  "$PY" -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<QQ", 3 | 2 << 7, 5 << 16) + struct.pack("<QQ", 4, 0))' \
    >"$TMP/a.raw"
  LAST_ARGS="disasm --raw a.raw --config tiny"
  run disasm --raw "$TMP/a.raw" --config tiny
  if [ "$RC" -eq 1 ]; then
    return 0  # refusing the instruction as corrupt is fine too
  fi
  [ "$RC" -eq 0 ] || fail "expected exit status 0 or 1, got $RC"
  cp "$OUT" "$TMP/a.s"
  must 0 asm --raw "$TMP/a.s" -o "$TMP/b.raw" --config tiny
  cmp "$TMP/a.raw" "$TMP/b.raw" >&2 || fail "disasm accepted the instruction but its text does not re-assemble to it"
}

# Writes the DRAM image for data/exec/gemm_tiny.s and the expected result.
make_gemm_tiny_data() {
  "$PY" - "$TMP" <<'EOF'
import random, struct, sys
tmp = sys.argv[1]
B, BI, BO = 2, 4, 8          # tiny: batch, block_in, block_out
K, N = 2, 2                  # input blocks, output blocks
ACC_BITS, INP_BITS = 6, 7    # tiny: index bits of ACC (64) and INP (128)
rng = random.Random(20240607)
A = [[rng.randint(-128, 127) for _ in range(K * BI)] for _ in range(B)]
W = [[rng.randint(-128, 127) for _ in range(K * BI)] for _ in range(N * BO)]
# Make sure truncation matters: one row of large values.
A[0] = [127] * (K * BI)
W[0] = [127] * (K * BI)
dram = bytearray([0x5A]) * 1024
# micro-op {dst=2, src=3, wgt=5}: dst | src << acc_bits | wgt << (acc_bits + src_bits)
struct.pack_into("<I", dram, 0, 2 | 3 << ACC_BITS | 5 << (ACC_BITS + INP_BITS))
for k in range(K):            # INP entry 8 + k: [batch][block_in]
    for b in range(B):
        for i in range(BI):
            dram[64 + k * B * BI + b * BI + i] = A[b][k * BI + i] & 0xFF
for n in range(N):            # WGT entry 4 + n*K + k: [block_out][block_in]
    for k in range(K):
        for o in range(BO):
            for i in range(BI):
                dram[128 + (n * K + k) * BO * BI + o * BI + i] = W[n * BO + o][k * BI + i] & 0xFF
expect = bytearray(dram) + bytes(4096 - len(dram))
for n in range(N):            # OUT entry 32 + n: [batch][block_out], int8 truncation of int32
    for b in range(B):
        for o in range(BO):
            acc = sum(A[b][kk] * W[n * BO + o][kk] for kk in range(K * BI))
            expect[512 + n * B * BO + b * BO + o] = acc & 0xFF
open(tmp + "/dram_in.bin", "wb").write(dram)
open(tmp + "/expect.bin", "wb").write(expect)
EOF
  [ $? -eq 0 ] || fail "could not write the DRAM image"
}

check_gemm_tiny_out() {
  "$PY" - "$TMP/expect.bin" "$1" <<'EOF' || fail "DRAM after the run differs from the Python GEMM"
import sys
want = open(sys.argv[1], "rb").read()
got = open(sys.argv[2], "rb").read()
assert len(got) == len(want), (len(got), len(want))
bad = [i for i in range(len(want)) if want[i] != got[i]]
if bad:
    for i in bad[:16]:
        region = "OUT" if 512 <= i < 544 else "not stored by the program"
        print("byte %d (%s): expected %d, got %d" % (i, region, want[i], got[i]), file=sys.stderr)
    sys.exit(1)
EOF
}

# A hand-written GEMM on tiny, from text and from an assembled program file.
case_exec_gemm() {
  local src=$DATA/exec/gemm_tiny.s
  make_gemm_tiny_data
  must 0 exec "$src" --config tiny --dram-size 4096 --dram-in "$TMP/dram_in.bin" --dram-out "$TMP/out1.bin"
  match "$OUT" "gemm_tiny.s: ok on fsim \\(7 instructions, 256 MACs, 0 ALU ops"
  check_gemm_tiny_out "$TMP/out1.bin"
  must 0 asm "$src" -o "$TMP/gemm.vprog" --config tiny
  must 0 exec "$TMP/gemm.vprog" --config tiny --dram-size 4096 --dram-in "$TMP/dram_in.bin" \
    --dram-out "$TMP/out2.bin" --json
  check_gemm_tiny_out "$TMP/out2.bin"
  json '
s = d["stats"]
assert d["device"] == "fsim" and d["config"] == "tiny", d
assert s["gemm_macs"] == 256, s
assert d["seconds"] >= 0, d
' "$OUT"
  # The DRAM image must fit the buffer.
  must 1 exec "$src" --config tiny --dram-size 512 --dram-in "$TMP/dram_in.bin"
  match "$ERR" "dram_in.bin: 1024 bytes do not fit the DRAM buffer of 512 bytes"
}

# --timeout-ms stops a long program (many instructions) quickly with exit 1.
case_exec_timeout() {
  { echo "LOAD UOP sram=0 dram=0 y=1 x=256 stride=256"
    for _ in $(seq 60); do echo "GEMM uops=0:256 iters=100,100"; done
    echo "FINISH"; } >"$TMP/long.s"
  local start=$SECONDS
  must 1 exec "$TMP/long.s" --config tiny --timeout-ms 200
  match "$ERR" "long.s: program did not finish within 200 ms"
  [ $((SECONDS - start)) -le 5 ] || fail "the run took $((SECONDS - start)) s, the timeout was 200 ms"
}

# --timeout-ms must also bound a single long instruction.
case_exec_timeout_one_instruction() {
  printf 'LOAD UOP sram=0 dram=0 y=1 x=256 stride=256\nGEMM uops=0:256 iters=16383,16383\nFINISH\n' >"$TMP/long.s"
  LAST_ARGS="exec long.s --config tiny --timeout-ms 300"
  timeout 10 "$VDLA" exec "$TMP/long.s" --config tiny --timeout-ms 300 >"$OUT" 2>"$ERR"
  RC=$?
  [ "$RC" -ne 124 ] || fail "vdla exec --timeout-ms 300 was still running after 10 s"
  [ "$RC" -eq 1 ] || fail "expected exit status 1, got $RC"
  match "$ERR" "did not finish within 300 ms"
}

# selftest on fsim for one config: every case passes, and the JSON agrees with --list.
case_selftest() {
  local cfg=$1
  must 0 selftest --config "$cfg" --list
  local n
  n=$(grep -c . "$OUT")
  [ "$n" -gt 0 ] || fail "selftest --list printed no cases"
  cp "$OUT" "$TMP/list.txt"
  must 0 selftest --device fsim --json --config "$cfg"
  match "$ERR" "selftest: device fsim, config $cfg"
  json '
with open(argv[1]) as f:
    names = [l.strip() for l in f if l.strip()]
assert d["device"] == "fsim" and d["config"] == argv[0], d
failed = [c["name"] + ": " + c["detail"] for c in d["cases"] if not c["passed"]]
assert d["failed"] == 0, failed
assert d["passed"] == len(names) == len(d["cases"]), (d["passed"], len(names))
assert [c["name"] for c in d["cases"]] == names
' "$OUT" "$cfg" "$TMP/list.txt"
}

# Every selftest case on another device backend (DEVICE CONFIG).
case_selftest_device() {
  local dev=$1 cfg=$2
  must 0 selftest --device "$dev" --json --config "$cfg"
  match "$ERR" "selftest: device $dev, config $cfg"
  json '
assert d["device"] == argv[0] and d["config"] == argv[1], d
failed = [c["name"] + ": " + c["detail"] for c in d["cases"] if not c["passed"]]
assert d["failed"] == 0 and d["passed"] == len(d["cases"]) > 20, (d["passed"], failed)
' "$OUT" "$dev" "$cfg"
}

# --filter and --seed; the text form.
case_selftest_filter() {
  must 0 selftest --config tiny --filter alu-ADD --seed 7 --json
  json '
assert [c["name"] for c in d["cases"]] == ["alu-ADD-imm", "alu-ADD-tensor"], d["cases"]
assert d["seed"] == 7 and d["passed"] == 2 and d["failed"] == 0, d
' "$OUT"
  must 0 selftest --config tiny --filter padded
  match "$OUT" "^selftest: 3 passed, 0 failed"
}

# explore: a small sweep writes its three reports and cache, the JSON and CSV
# agree, the front is non-dominated, and a second run comes from the cache.
case_explore_outputs() {
  local dir=$TMP/ex
  must 0 explore --network resnet18 --image-size 64 --base ultra96 --block-in 8,16 --block-out 16,32 \
    --weight-kib 128,256 --axi-bits 64 --latency-hiding on,off --clock-mhz 200,287,300 --out "$dir" --threads 2
  match "$OUT" "^[0-9]+ points \([0-9]+ evaluated, 0 from cache\)"
  match "$OUT" "^Pareto front"
  match "$OUT" "refused \(clock cap 287 MHz"
  match "$OUT" "^shipped configs:"
  match "$OUT" "^  ultra96 "
  for f in results.json results.csv pareto.svg cache.jsonl; do [ -s "$dir/$f" ] || fail "no $f"; done
  match "$dir/pareto.svg" "^<svg "
  match "$dir/pareto.svg" "Pareto front"
  json '
import csv, re
pts = d["points"]
refused = d["refused"]
# 2 x 2 x 2 shapes/buffers x 3 clocks; each valid one twice (latency hiding on/off).
assert len(pts) == 2 * (24 - len(refused)), (len(pts), len(refused))
capped = [r for r in refused if "above the cap of 287 MHz" in r["reason"]]
# (square points keep the DWGEMM window of the base: their names end in
# -dw<taps>; and its second ACC read port: -dr)
assert capped and all(re.search(r"-300mhz(-dw[0-9]+)?(-dr)?$", r["name"]) for r in capped), refused
assert all(r in capped or "instructions are 128 bits" in r["reason"] for r in refused), refused
rows = list(csv.DictReader(open(argv[0])))
assert [r["name"] for r in rows] == [p["name"] for p in pts]
front = [p for p in pts if p["on_front"]]
assert front, "empty front"
ok = [p for p in pts if p["fits"] and p["complete"]]
for f in front:
    for q in ok:
        assert not (q["resources"]["dsp"] <= f["resources"]["dsp"] and q["latency_ms"] < f["latency_ms"]), (f["name"], q["name"])
for p in pts:
    n = p["networks"][0]
    assert n["network"] == "resnet18" and n["layers_total"] == 23  # 21 convolutions and both poolings
    assert abs(n["latency_ms"] - n["cycles"] / (p["clock_mhz"] * 1e3)) < 1e-9 * n["latency_ms"] + 1e-12
    assert 0 < n["mac_utilisation"] <= 1
    assert p["clock_mhz"] in (200, 287)
assert d["marked"][0]["name"] == "ultra96"
' "$dir/results.json" "$dir/results.csv"
  must 0 explore --network resnet18 --image-size 64 --base ultra96 --block-in 8,16 --block-out 16,32 \
    --weight-kib 128,256 --axi-bits 64 --latency-hiding on,off --clock-mhz 200,287,300 --out "$dir" --threads 2
  match "$OUT" "^([0-9]+) points \(0 evaluated, \1 from cache\)"
}

# explore --yosys: the fastest front point goes through scripts/hw/resources.sh
# (yosys replaced by a stand-in with fixed cell counts), and what it counted
# lands in the results beside the model's estimate.
case_explore_yosys() {
  local dir=$TMP/ex
  YOSYS=$DATA/explore/stand_in_yosys.sh must 0 explore --network resnet18 --image-size 32 --base ultra96 \
    --block-out 8,16 --out "$dir" --yosys 1 --quiet
  match "$OUT" "^synthesised with yosys"
  match "$OUT" "LUT 31234/[0-9]+  FF 4321/[0-9]+  DSP 215/[0-9]+  BRAM36 102.5/"
  json '
done = [p for p in d["points"] if "yosys" in p]
assert len(done) == 1, len(done)
y = done[0]["yosys"]
assert (y["lut"], y["ff"], y["dsp"], y["bram36"]) == (31234, 4321, 215, 102.5), y
assert done[0]["on_front"], done[0]
assert y["yosys"].startswith("Yosys 0.23"), y
' "$dir/results.json"
  local cfg
  cfg=$("$PY" -c 'import json,sys; print([p for p in json.load(open(sys.argv[1]))["points"] if "yosys" in p][0]["yosys"]["config_file"])' "$dir/results.json")
  must 0 config check "$cfg"
}

# explore --depthwise-taps: the DWGEMM window swept like any field, on
# ultra96's 1x32x16 array (lane blocks) and a 16x32 one, which cannot hold it.
case_explore_depthwise_taps() {
  local dir=$TMP/ex
  must 0 explore --network resnet18 --image-size 32 --base ultra96 --block-in 16,32 --block-out 16,32 \
    --depthwise-taps 0,3 --latency-hiding on --out "$dir" --quiet
  json '
import re
# (names end in -dr too: the base has a second ACC read port)
dw3 = lambda n: re.search(r"-dw3(-dr)?$", n) is not None
names = [p["name"] for p in d["points"]]
assert any(n.startswith("b1-32x16-") and dw3(n) for n in names), names
assert any(n.startswith("b1-32x16-") and not dw3(n) for n in names), names
assert not any(n.startswith("b1-16x32-") and dw3(n) for n in names), names
wide = [r for r in d["refused"] if r["name"].startswith("b1-16x32-") and dw3(r["name"])]
assert len(wide) == 1 and "block_in >= gemm.block_out" in wide[0]["reason"], d["refused"]
' "$dir/results.json"
}

# explore --calibration: one row per yosys run and the mean errors.
case_explore_calibration() {
  must 0 explore --calibration
  match "$OUT" "^resource model on [0-9]+ yosys runs"
  match "$OUT" "^  pynq-classic "
  match "$OUT" "mean \|error\|: lut"
  must 0 explore --calibration --json
  # every row's measurement is the data file's, for the same config names
  local cal="$SHIPPED/../../explore/data/resource_calibration.json"
  json 'import json; want = {p["config"]["name"]: p["measured"] for p in json.load(open("'"$cal"'"))["points"]}
assert sorted(p["config"] for p in d) == sorted(want), d
assert all(p[k]["measured"] == want[p["config"]][k] for p in d for k in ("lut", "ff", "dsp", "bram36")), d
assert any(p["config"] == "pynq" for p in d), d' "$OUT"
}

# ---------------------------------------------------------------- dispatch

fn="case_${CASE//-/_}"
if ! declare -F "$fn" >/dev/null; then
  echo "cli_test.sh: unknown case '$CASE'" >&2
  exit 2
fi
"$fn" "$@"
echo "PASS [$CASE]"
exit 0
