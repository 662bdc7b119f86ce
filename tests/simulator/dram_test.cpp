// sim::Dram: the simulated physical address space.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "vdla/hw/error.h"
#include "vdla/sim/dram.h"

namespace vdla::sim {
namespace {

using ::testing::HasSubstr;

TEST(Dram, AddressZeroIsNeverMapped) {
  Dram dram;
  uint64_t a = dram.allocate(100);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(dram.map(0, 1), nullptr);
  EXPECT_EQ(dram.map(0, 0), nullptr);
}

TEST(Dram, AllocationsAreAlignedAndZeroFilled) {
  Dram dram;
  for (uint64_t align : {uint64_t(1), uint64_t(2), uint64_t(8), uint64_t(64), uint64_t(4096), uint64_t(65536)}) {
    for (uint64_t bytes : {uint64_t(1), uint64_t(3), uint64_t(4095), uint64_t(4097), uint64_t(100000)}) {
      uint64_t a = dram.allocate(bytes, align);
      EXPECT_EQ(a % align, 0u) << "align " << align << " bytes " << bytes;
      const uint8_t* p = dram.map(a, bytes);
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(std::all_of(p, p + bytes, [](uint8_t b) { return b == 0; }));
    }
  }
  // Default alignment is 4 KiB.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(dram.allocate(10 + i) % 4096, 0u);
}

TEST(Dram, ReusedMemoryIsZeroFilledAgain) {
  Dram dram;
  uint64_t a = dram.allocate(4096);
  std::memset(dram.map(a, 4096), 0xab, 4096);
  dram.release(a);
  uint64_t b = dram.allocate(4096);
  const uint8_t* p = dram.map(b, 4096);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(std::all_of(p, p + 4096, [](uint8_t x) { return x == 0; }));
}

TEST(Dram, BadAlignmentIsAnError) {
  Dram dram;
  EXPECT_THROW(dram.allocate(16, 0), Error);
  EXPECT_THROW(dram.allocate(16, 3), Error);
  EXPECT_THROW(dram.allocate(16, 4097), Error);
}

// Many allocations and releases in random order: live buffers never overlap,
// each is aligned, and writing one never changes another.
TEST(Dram, ManyAllocationsNeverOverlap) {
  Dram dram;
  std::mt19937_64 rng(42);
  struct Live {
    uint64_t size;
    uint8_t pattern;
  };
  std::map<uint64_t, Live> live;
  uint64_t expected_bytes = 0;
  for (int step = 0; step < 600; ++step) {
    if (!live.empty() && rng() % 3 == 0) {
      auto it = std::next(live.begin(), long(rng() % live.size()));
      dram.release(it->first);
      expected_bytes -= it->second.size;
      live.erase(it);
      continue;
    }
    const uint64_t bytes = 1 + rng() % 9000;
    const uint64_t align = uint64_t(1) << (rng() % 14);
    const uint64_t a = dram.allocate(bytes, align);
    ASSERT_EQ(a % align, 0u);
    auto next = live.lower_bound(a);
    if (next != live.end()) {
      ASSERT_LE(a + bytes, next->first) << "overlaps the next buffer";
    }
    if (next != live.begin()) {
      auto prev = std::prev(next);
      ASSERT_LE(prev->first + prev->second.size, a) << "overlaps the previous buffer";
    }
    const uint8_t pattern = uint8_t(1 + rng() % 255);
    uint8_t* p = dram.map(a, bytes);
    ASSERT_NE(p, nullptr);
    ASSERT_TRUE(std::all_of(p, p + bytes, [](uint8_t x) { return x == 0; }));
    std::memset(p, pattern, bytes);
    live[a] = {bytes, pattern};
    expected_bytes += bytes;
    ASSERT_EQ(dram.bytesAllocated(), expected_bytes);
  }
  for (const auto& [addr, l] : live) {
    const uint8_t* p = dram.map(addr, l.size);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(std::all_of(p, p + l.size, [&](uint8_t x) { return x == l.pattern; }))
        << "buffer at 0x" << std::hex << addr << " was overwritten";
  }
}

TEST(Dram, MapRefusesRangesOutsideOneBuffer) {
  Dram dram;
  uint64_t a = dram.allocate(100, 4096);
  uint64_t b = dram.allocate(100, 4096);
  ASSERT_GE(b, a + 100);
  EXPECT_NE(dram.map(a, 100), nullptr);
  EXPECT_EQ(dram.map(a, 100), dram.map(a, 1));
  EXPECT_EQ(dram.map(a + 99, 1), dram.map(a, 100) + 99);
  EXPECT_EQ(dram.map(a, 101), nullptr);        // crosses the end
  EXPECT_EQ(dram.map(a + 50, 51), nullptr);    // crosses the end from inside
  EXPECT_EQ(dram.map(a + 100, 1), nullptr);    // just past the end
  EXPECT_EQ(dram.map(a - 1, 2), nullptr);      // starts before the buffer
  EXPECT_EQ(dram.map(a + 200, 1), nullptr);    // in the gap between buffers
  EXPECT_EQ(dram.map(a, b - a + 1), nullptr);  // spans both buffers and the gap
  EXPECT_EQ(dram.map(b + 100, 1), nullptr);    // past the last buffer
  EXPECT_EQ(dram.map(a, std::numeric_limits<uint64_t>::max()), nullptr);
  EXPECT_EQ(dram.map(std::numeric_limits<uint64_t>::max(), 1), nullptr);
  // Small, byte-aligned buffers: a range running off the end of one is refused
  // whatever lies after it.
  Dram packed(0x1000, 0x100000);
  uint64_t x = packed.allocate(16, 1), y = packed.allocate(16, 1);
  ASSERT_GE(y, x + 16);
  EXPECT_EQ(packed.map(x + 8, 16), nullptr);
  EXPECT_EQ(packed.map(x, y + 16 - x), nullptr);
  EXPECT_NE(packed.map(x + 8, 8), nullptr);
  EXPECT_NE(packed.map(y, 16), nullptr);
  // Released buffers are unmapped.
  dram.release(a);
  EXPECT_EQ(dram.map(a, 1), nullptr);
  EXPECT_NE(dram.map(b, 100), nullptr);
}

TEST(Dram, ReleaseOfUnknownAddressIsAnError) {
  Dram dram;
  uint64_t a = dram.allocate(256);
  try {
    dram.release(a + 16);
    ADD_FAILURE() << "release inside a buffer was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not the start of a buffer"));
  }
  EXPECT_THROW(dram.release(0), Error);
  EXPECT_THROW(dram.release(a + 4096), Error);
  dram.release(a);
  EXPECT_THROW(dram.release(a), Error) << "double release";
  EXPECT_EQ(dram.bytesAllocated(), 0u);
}

TEST(Dram, ExhaustionIsAnError) {
  Dram dram(0x1000, 0x4000);
  uint64_t a = dram.allocate(0x4000);
  EXPECT_EQ(a, 0x1000u);
  EXPECT_EQ(dram.bytesAllocated(), 0x4000u);
  try {
    dram.allocate(1);
    ADD_FAILURE() << "allocation beyond capacity was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot allocate"));
  }
  dram.release(a);
  EXPECT_EQ(dram.bytesAllocated(), 0u);
  // Fill the space with small buffers until it is exhausted; every one lies
  // inside [base, base + capacity).
  std::vector<uint64_t> blocks;
  for (;;) {
    try {
      uint64_t b = dram.allocate(0x400, 0x400);
      EXPECT_GE(b, 0x1000u);
      EXPECT_LE(b + 0x400, 0x5000u);
      blocks.push_back(b);
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("cannot allocate"));
      break;
    }
    ASSERT_LE(blocks.size(), 16u) << "more 1 KiB buffers than fit in 16 KiB";
  }
  ASSERT_FALSE(blocks.empty());
  // Freed space is reused.
  const uint64_t middle = blocks[blocks.size() / 2];
  dram.release(middle);
  uint64_t again = 0;
  ASSERT_NO_THROW(again = dram.allocate(0x400, 0x400));
  EXPECT_LE(again + 0x400, 0x5000u);
  for (uint64_t b : blocks) {
    if (b == middle) continue;
    EXPECT_TRUE(again + 0x400 <= b || b + 0x400 <= again) << "reused space overlaps a live buffer";
  }
  // Alignment padding counts against capacity.
  Dram small(0x1000, 0x2000);
  EXPECT_THROW(small.allocate(0x1000, 0x4000), Error);
  // A request larger than the whole space.
  EXPECT_THROW(small.allocate(0x2001), Error);
  EXPECT_EQ(small.bytesAllocated(), 0u);
}

// A huge request must be reported as exhaustion, not overflow the capacity
// check (`candidate + bytes` wraps around for sizes near 2^64) and reach
// `new uint8_t[bytes]`.
TEST(Dram, HugeRequestIsExhaustionNotOverflow) {
  Dram dram;
  EXPECT_THROW(dram.allocate(std::numeric_limits<uint64_t>::max()), Error);
  EXPECT_THROW(dram.allocate(std::numeric_limits<uint64_t>::max() - 0x10000000 + 1), Error);
  EXPECT_THROW(dram.allocate(16, uint64_t(1) << 63), Error);
  EXPECT_EQ(dram.bytesAllocated(), 0u);
  EXPECT_NE(dram.allocate(16), 0u);
}

// Attached memory is the caller's own bytes, not a copy: what a simulator
// writes through map() is what the owner reads, and the other way round.
TEST(Dram, AttachedMemoryIsTheCallersBytes) {
  Dram dram;
  std::vector<uint8_t> host(10000, 0x5a);
  const uint64_t at = 0x20000000;
  dram.attach(at, host.data(), host.size());
  EXPECT_EQ(dram.bytesAllocated(), host.size());
  EXPECT_EQ(dram.map(at, host.size()), host.data());
  EXPECT_EQ(dram.map(at + 1234, 10), host.data() + 1234);
  dram.map(at + 7, 1)[0] = 0x11;
  EXPECT_EQ(host[7], 0x11);
  host[9999] = 0x22;
  EXPECT_EQ(dram.map(at + 9999, 1)[0], 0x22);
  // Bounds are checked as for an allocated buffer.
  EXPECT_EQ(dram.map(at, host.size() + 1), nullptr);
  EXPECT_EQ(dram.map(at + host.size(), 1), nullptr);
  EXPECT_EQ(dram.map(at - 1, 2), nullptr);
  // Allocations go around it, guard gaps included.
  for (int i = 0; i < 200; ++i) {
    const uint64_t bytes = 1 + (uint64_t(i) * 7919) % 60000;
    const uint64_t a = dram.allocate(bytes, 1);
    EXPECT_TRUE(a + bytes + Dram::kGuardBytes <= at || a >= at + host.size() + Dram::kGuardBytes)
        << "allocation at 0x" << std::hex << a << " lies in or next to the attached memory";
  }
  EXPECT_TRUE(std::all_of(host.begin() + 10, host.end() - 1, [](uint8_t b) { return b == 0x5a; }))
      << "allocating zero-filled buffers changed the attached memory";
  // release() is for allocated buffers; attached memory is detached.
  try {
    dram.release(at);
    ADD_FAILURE() << "release of attached memory was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("attached memory rather than an allocated buffer (detach it instead)"));
  }
  EXPECT_NE(dram.map(at, 1), nullptr);
  const uint64_t before = dram.bytesAllocated();
  dram.detach(at);
  EXPECT_EQ(dram.bytesAllocated(), before - host.size());
  EXPECT_EQ(dram.map(at, 1), nullptr);
  EXPECT_EQ(host[7], 0x11) << "detach must leave the caller's bytes alone";
  try {
    dram.detach(at);
    ADD_FAILURE() << "double detach was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("detach of DRAM address 0x20000000, which is not the start of attached memory"));
  }
  const uint64_t owned = dram.allocate(64);
  EXPECT_THROW(dram.detach(owned), Error) << "detach of an allocated buffer";
  EXPECT_NE(dram.map(owned, 64), nullptr);
}

TEST(Dram, AttachRefusesOverlapsAndRangesOutsideTheAddressSpace) {
  Dram dram(0x10000, 0x100000);  // [0x10000, 0x110000)
  std::vector<uint8_t> host(0x2000);
  auto refused = [&](uint64_t addr, uint8_t* p, uint64_t bytes, const std::string& why) {
    try {
      dram.attach(addr, p, bytes);
      ADD_FAILURE() << "attach at 0x" << std::hex << addr << " of 0x" << bytes << " bytes was accepted";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(why));
    }
  };
  refused(0x20000, nullptr, 16, "no memory given");
  refused(0x20000, host.data(), 0, "no memory given");
  refused(0x8000, host.data(), 16, "leaves the simulated address space [0x10000, 0x110000)");
  refused(0x10f000, host.data(), 0x2000, "leaves the simulated address space");
  refused(std::numeric_limits<uint64_t>::max() - 8, host.data(), 16, "leaves the simulated address space");
  refused(0x20000, host.data(), std::numeric_limits<uint64_t>::max(), "leaves the simulated address space");
  const uint64_t a = dram.allocate(0x1000);
  ASSERT_EQ(a, 0x10000u);
  refused(a + 0x800, host.data(), 16, "overlaps the buffer at 0x10000");
  refused(a + 0x1000 + Dram::kGuardBytes - 1, host.data(), 16, "overlaps the buffer at 0x10000 or its guard gap");
  dram.attach(0x40000, host.data(), host.size());
  refused(0x41000, host.data(), 16, "overlaps the buffer at 0x40000");
  refused(0x40000 - Dram::kGuardBytes, host.data(), 1, "overlaps the buffer at 0x40000 or its guard gap");
  refused(0x30000, host.data(), 0x20000, "overlaps the buffer at 0x40000");
  EXPECT_EQ(dram.bytesAllocated(), 0x1000u + host.size()) << "a refused attach must change nothing";
  // Exactly one guard gap away on either side is fine.
  std::vector<uint8_t> other(16);
  dram.attach(a + 0x1000 + Dram::kGuardBytes, other.data(), other.size());
  dram.attach(0x40000 + host.size() + Dram::kGuardBytes, other.data(), other.size());
  EXPECT_EQ(dram.map(0x40000 + host.size() + Dram::kGuardBytes, 16), other.data());
}

}  // namespace
}  // namespace vdla::sim
