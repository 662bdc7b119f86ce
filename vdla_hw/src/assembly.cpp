#include "vdla/hw/assembly.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>

#include "vdla/hw/error.h"

namespace vdla::hw {
namespace {

// An operand group: "key=v0<sep>v1..." spelling one or more instruction fields.
struct Group {
  const char* key;
  std::vector<Field> fields;
  char separator;
};

const std::vector<Group>& groupsOf(Opcode op) {
  static const std::vector<Group> memory = {
      {"sram", {Field::SramBase}, ','},
      {"dram", {Field::DramBase}, ','},
      {"y", {Field::YSize}, ','},
      {"x", {Field::XSize}, ','},
      {"stride", {Field::XStride}, ','},
      {"pad", {Field::YPadTop, Field::YPadBottom, Field::XPadLeft, Field::XPadRight}, ','},
  };
  static const std::vector<Group> gemm = {
      {"uops", {Field::UopBegin, Field::UopEnd}, ':'},         {"iters", {Field::IterOut, Field::IterIn}, ','},
      {"dst", {Field::DstFactorOut, Field::DstFactorIn}, ','}, {"src", {Field::SrcFactorOut, Field::SrcFactorIn}, ','},
      {"wgt", {Field::WgtFactorOut, Field::WgtFactorIn}, ','},
  };
  // DWGEMM: the weight steps only per outer iteration; taps and output stride.
  static const std::vector<Group> dwgemm = {
      {"uops", {Field::UopBegin, Field::UopEnd}, ':'},
      {"iters", {Field::IterOut, Field::IterIn}, ','},
      {"dst", {Field::DstFactorOut, Field::DstFactorIn}, ','},
      {"src", {Field::SrcFactorOut, Field::SrcFactorIn}, ','},
      {"wgt", {Field::WgtFactorOut}, ','},
      {"taps", {Field::Taps}, ','},
      {"stride", {Field::Stride}, ','},
      {"lane_block", {Field::LaneBlock}, ','},  // where block_in > block_out; written when not 0
  };
  static const std::vector<Group> alu = {
      {"uops", {Field::UopBegin, Field::UopEnd}, ':'},
      {"iters", {Field::IterOut, Field::IterIn}, ','},
      {"dst", {Field::DstFactorOut, Field::DstFactorIn}, ','},
      {"src", {Field::SrcFactorOut, Field::SrcFactorIn}, ','},
      {"imm", {Field::Imm}, ','},
  };
  // SETREQ: the ACC entry of the operand (the bias follows it) and the imm.
  static const std::vector<Group> setreq = {
      {"acc", {Field::SramBase}, ','},
      {"imm", {Field::Imm}, ','},
  };
  static const std::vector<Group> none;
  switch (op) {
    case Opcode::Load:
    case Opcode::Store: return memory;
    case Opcode::Gemm: return gemm;
    case Opcode::Alu: return alu;
    case Opcode::Finish: return none;
    case Opcode::DwGemm: return dwgemm;
    case Opcode::SetReq: return setreq;
  }
  return none;
}

const std::map<std::string, Field>& flagWords() {
  static const std::map<std::string, Field> flags = {
      {"pop_prev", Field::PopPrev},   {"pop_next", Field::PopNext}, {"push_prev", Field::PushPrev},
      {"push_next", Field::PushNext}, {"reset", Field::Reset},      {"bias_clear", Field::BiasClear},
      {"requant", Field::Requant},
  };
  return flags;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class LineParser {
 public:
  LineParser(const IsaLayout& layout, std::string where) : layout_(layout), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& reason) const { throw Error(where_ + ": " + reason); }

  Instruction parse(const std::vector<std::string>& words) {
    Instruction insn;
    const std::string mnemonic = upper(words[0]);
    size_t next = 1;
    if (!opcodeFromName(mnemonic, insn.opcode)) fail("unknown mnemonic '" + words[0] + "'");
    if (insn.opcode == Opcode::Load || insn.opcode == Opcode::Store) {
      if (words.size() < 2) fail(mnemonic + " needs a memory (UOP, WGT, INP, ACC, ACC8 or OUT)");
      insn.memory = memoryFromName(upper(words[next++]));
    } else if (insn.opcode == Opcode::Alu) {
      if (words.size() < 2) fail("ALU needs an operation (MIN, MAX, ADD, MUL, SHR, RSHR, MOV)");
      insn.alu_op = aluOpFromName(upper(words[next++]));
    } else if (insn.opcode == Opcode::SetReq) {
      if (words.size() < 2) fail("SETREQ needs an operation (REQ or FREQ)");
      insn.alu_op = aluOpFromName(upper(words[next++]));
    }
    std::map<std::string, int> seen;
    for (; next < words.size(); ++next) {
      const std::string& w = words[next];
      if (seen[w.substr(0, w.find('='))]++) fail("operand '" + w.substr(0, w.find('=')) + "' given twice");
      auto eq = w.find('=');
      if (eq == std::string::npos) {
        auto flag = flagWords().find(w);
        // bias_clear or requant on a config without its extension: encode()
        // below says so.
        const bool extension_flag =
            flag != flagWords().end() &&
            ((flag->second == Field::BiasClear && insn.opcode == Opcode::Alu) ||
             (flag->second == Field::Requant && (insn.opcode == Opcode::Gemm || insn.opcode == Opcode::DwGemm)));
        if (flag == flagWords().end() || (!hasField(insn.opcode, flag->second) && !extension_flag))
          fail("unknown flag '" + w + "' for " + mnemonic);
        setField(insn, flag->second, 1);
        continue;
      }
      std::string key = w.substr(0, eq), value = w.substr(eq + 1);
      const Group* group = nullptr;
      for (const Group& g : groupsOf(insn.opcode))
        if (key == g.key) group = &g;
      if (!group) fail("unknown operand '" + key + "' for " + mnemonic);
      std::vector<std::string> parts = split(value, group->separator);
      if (parts.size() != group->fields.size())
        fail("operand '" + key + "' takes " + std::to_string(group->fields.size()) + " value(s) separated by '" +
             group->separator + "', got '" + value + "'");
      for (size_t i = 0; i < parts.size(); ++i) {
        const int64_t v = number(parts[i], key);
        // Range-check before storing: setField narrows to the member's type.
        // lane_block on a square array has no field: encode() below says why.
        if (group->fields[i] == Field::LaneBlock && !hasField(insn.opcode, Field::LaneBlock)) {
          if (v < 0 || v > 255) fail("operand 'lane_block': " + parts[i] + " is out of range");
        } else {
          std::string why = IsaLayout::whyInvalidValue(insn.opcode, bitField(insn.opcode, group->fields[i]), v);
          if (!why.empty()) fail(why);
        }
        setField(insn, group->fields[i], v);
      }
      if (group->fields[0] == Field::Imm && insn.opcode == Opcode::Alu) insn.use_imm = true;
    }
    if (insn.opcode == Opcode::Store && insn.memory != Memory::Output && insn.memory != Memory::Input)
      fail("STORE stores the OUT memory, to DRAM (STORE OUT) or to INP (STORE INP)");
    if (insn.opcode == Opcode::Load && insn.memory == Memory::Output) fail("LOAD cannot write the OUT memory");
    layout_.encode(insn, where_);  // range-checks every field against its width
    return insn;
  }

 private:
  const BitField& bitField(Opcode op, Field f) const {
    for (const BitField& b : layout_.fields(op))
      if (b.field == f) return b;
    fail(std::string("field ") + fieldName(f) + " does not belong to " + opcodeName(op));
  }
  bool hasField(Opcode op, Field f) const {
    for (const BitField& b : layout_.fields(op))
      if (b.field == f) return true;
    return false;
  }
  static bool opcodeFromName(const std::string& name, Opcode& out) {
    for (int op = 0; op < kNumOpcodes; ++op)
      if (name == opcodeName(Opcode(op))) {
        out = Opcode(op);
        return true;
      }
    return false;
  }
  Memory memoryFromName(const std::string& name) const {
    for (int m = 0; m < kNumMemoryIds; ++m)
      if (name == memoryName(Memory(m))) return Memory(m);
    fail("unknown memory '" + name + "' (UOP, WGT, INP, ACC, ACC8, OUT)");
  }
  AluOp aluOpFromName(const std::string& name) const {
    for (int op = 0; op < kNumAluOps; ++op)
      if (name == aluOpName(AluOp(op))) return AluOp(op);
    std::string known;
    for (int op = 0; op < kNumAluOps; ++op) known += std::string(op ? ", " : "") + aluOpName(AluOp(op));
    fail("unknown ALU operation '" + name + "' (" + known + ")");
  }
  static std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == sep) {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    out.push_back(cur);
    return out;
  }
  int64_t number(const std::string& text, const std::string& key) const {
    if (text.empty()) fail("operand '" + key + "' has an empty value");
    errno = 0;
    char* end = nullptr;
    // Decimal, or hexadecimal with 0x; a leading zero does not mean octal.
    const size_t digits = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    const bool hex = text.compare(digits, 2, "0x") == 0 || text.compare(digits, 2, "0X") == 0;
    long long v = std::strtoll(text.c_str(), &end, hex ? 16 : 10);
    if (*end != '\0' || errno == ERANGE) fail("operand '" + key + "': '" + text + "' is not an integer");
    return v;
  }

  const IsaLayout& layout_;
  std::string where_;
};

}  // namespace

std::vector<Instruction> assemble(const std::string& text, const IsaLayout& layout, const std::string& origin) {
  std::vector<Instruction> program;
  std::istringstream in(text);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    auto comment = line.find_first_of(";#");
    if (comment != std::string::npos) line.resize(comment);
    std::istringstream words_in(line);
    std::vector<std::string> words;
    for (std::string w; words_in >> w;) words.push_back(w);
    if (words.empty()) continue;
    LineParser parser(layout, origin + ":" + std::to_string(line_no));
    program.push_back(parser.parse(words));
  }
  return program;
}

std::string disassemble(const Instruction& insn) {
  std::ostringstream out;
  out << opcodeName(insn.opcode);
  if (insn.opcode == Opcode::Load || insn.opcode == Opcode::Store) out << ' ' << memoryName(insn.memory);
  if (insn.opcode == Opcode::Alu || insn.opcode == Opcode::SetReq) out << ' ' << aluOpName(insn.alu_op);
  for (const Group& g : groupsOf(insn.opcode)) {
    bool all_zero = true;
    for (Field f : g.fields) all_zero = all_zero && getField(insn, f) == 0;
    if (g.fields[0] == Field::Imm ? (insn.opcode == Opcode::Alu && !insn.use_imm)
                                  : (all_zero && (g.fields.size() == 4 || g.fields[0] == Field::LaneBlock)))
      continue;
    out << ' ' << g.key << '=';
    for (size_t i = 0; i < g.fields.size(); ++i) {
      if (i) out << g.separator;
      int64_t v = getField(insn, g.fields[i]);
      if (g.fields[i] == Field::DramBase)
        out << "0x" << std::hex << v << std::dec;
      else
        out << v;
    }
  }
  if (insn.opcode == Opcode::Gemm && insn.reset) out << " reset";
  if ((insn.opcode == Opcode::Gemm || insn.opcode == Opcode::DwGemm) && insn.requant) out << " requant";
  if (insn.opcode == Opcode::Alu && insn.bias_clear) out << " bias_clear";
  if (insn.pop_prev) out << " pop_prev";
  if (insn.pop_next) out << " pop_next";
  if (insn.push_prev) out << " push_prev";
  if (insn.push_next) out << " push_next";
  return out.str();
}

std::string disassembleProgram(const std::vector<Instruction>& program) {
  std::ostringstream out;
  for (size_t i = 0; i < program.size(); ++i) {
    std::string line = disassemble(program[i]);
    out << line << std::string(line.size() < 72 ? 72 - line.size() : 1, ' ') << "; " << i << '\n';
  }
  return out.str();
}

}  // namespace vdla::hw
