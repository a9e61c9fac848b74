// The profile saved for this machine (choice/machine_profiles.h, //bench:calibrate --save): its name and directory,
// and a communicator given no profile pricing with rank 0's saved file on every rank (collectives/profile_choice.h),
// with the application's profile still winning, a bad file an error on every rank, and other shapes left alone.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "choice/auto_choice.h"
#include "choice/machine_profiles.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/profile_json.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string TestDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

// A directory of this rank's own (ranks of one job share TEST_TMPDIR).
std::string RankDir(const std::string& name) {
  const std::string dir = absl::StrCat(TestDir(), "/rank", WorldRank(), "_", name);
  EXPECT_TRUE(MakeDirectories(dir).ok());
  return dir;
}

// A profile whose intra-node alpha says which file it came from.
std::string ProfileWithAlpha(double alpha) {
  models::Profile p;
  p.intra = {alpha, 1e-10};
  p.inter = {alpha, 1e-10};
  return models::ProfileToJson(p);
}

class MachineProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"KCOLL_PROFILE", "KCOLL_MACHINE_PROFILES", "XDG_CACHE_HOME", "KCOLL_SHM_SINGLE_COPY",
                             "KCOLL_SHM_SLOT_BYTES", "KCOLL_SHM_SLOTS"}) {
      unsetenv(name);
    }
  }
  void TearDown() override { SetUp(); }

  // The topology and transport a communicator created now has, and where its saved profile goes in `dir`.
  std::string SavedPathIn(const std::string& dir) {
    setenv("KCOLL_MACHINE_PROFILES", "off", 1);
    auto probe = Communicator::Create(MPI_COMM_WORLD);
    EXPECT_TRUE(AllRanks(probe.ok())) << probe.status();
    setenv("KCOLL_MACHINE_PROFILES", dir.c_str(), 1);
    return absl::StrCat(dir, "/", MachineProfileFileName(MachineName(), (*probe)->topology(), (*probe)->transport()));
  }
};

TEST_F(MachineProfileTest, FileNameSaysMachineTransportAndShape) {
  EXPECT_TRUE(std::regex_match(MachineName(), std::regex("[a-z0-9]+(_[a-z0-9]+)*_[0-9]+cpus"))) << MachineName();
  EXPECT_EQ(MachineProfileFileName("m", MakeTopology(0, {0, 0}, false), TransportKind::kShm), "m-shm-1x2.json");
  EXPECT_EQ(MachineProfileFileName("m", MakeTopology(0, {0, 0, 1, 1}, true), TransportKind::kShm), "m-shm-2x2e.json");
  EXPECT_EQ(MachineProfileFileName("m", MakeTopology(0, {0, 0, 1}, false), TransportKind::kMpi), "m-mpi-2n3r.json");
}

TEST_F(MachineProfileTest, DirectoryFromTheEnvironment) {
  const char* home = std::getenv("HOME");
  const std::string saved_home = home != nullptr ? home : "";
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(MachineProfileDirectory(), std::optional<std::string>("/home/u/.cache/kcoll/profiles"));
  setenv("XDG_CACHE_HOME", "/cache", 1);
  EXPECT_EQ(MachineProfileDirectory(), std::optional<std::string>("/cache/kcoll/profiles"));
  setenv("KCOLL_MACHINE_PROFILES", "/mine", 1);
  EXPECT_EQ(MachineProfileDirectory(), std::optional<std::string>("/mine"));
  setenv("KCOLL_MACHINE_PROFILES", "off", 1);
  EXPECT_EQ(MachineProfileDirectory(), std::nullopt);
  absl::StatusOr<std::string> path = MachineProfilePath(MakeTopology(0, {0}, false), TransportKind::kShm);
  EXPECT_EQ(path.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(path.status().message(), HasSubstr("KCOLL_MACHINE_PROFILES='off' turns"));
  setenv("KCOLL_MACHINE_PROFILES", "", 1);  // empty: as if unset
  EXPECT_EQ(MachineProfileDirectory(), std::optional<std::string>("/cache/kcoll/profiles"));
  unsetenv("KCOLL_MACHINE_PROFILES");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "relative", 1);
  EXPECT_EQ(MachineProfileDirectory(), std::nullopt);
  EXPECT_THAT(MachineProfilePath(MakeTopology(0, {0}, false), TransportKind::kShm).status().message(),
              HasSubstr("set KCOLL_MACHINE_PROFILES"));
  setenv("HOME", saved_home.c_str(), 1);
}

TEST_F(MachineProfileTest, MakeDirectoriesMakesEveryLevelAndRefusesAFile) {
  const std::string base = RankDir("dirs");
  EXPECT_TRUE(MakeDirectories(base + "/a/b/c").ok());
  EXPECT_EQ(access((base + "/a/b/c").c_str(), F_OK), 0);
  EXPECT_TRUE(MakeDirectories(base + "/a/b/c").ok());  // already there
  std::ofstream(base + "/file") << "x";
  absl::Status refused = MakeDirectories(base + "/file/d");
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr(base + "/file"));
}

// Every rank prices with rank 0's saved file: the others hold another one (or none), which must not count.
TEST_F(MachineProfileTest, EveryRankPricesWithRankZerosSavedProfile) {
  const std::string path = SavedPathIn(RankDir("saved"));
  if (WorldRank() == 0) {
    std::ofstream(path) << ProfileWithAlpha(7e-6);
  } else if (WorldRank() % 2 == 1) {
    std::ofstream(path) << ProfileWithAlpha(9e-6);
  }
  std::string rank0_path = path;
  rank0_path.resize(4096);
  MPI_Bcast(rank0_path.data(), 4096, MPI_CHAR, 0, MPI_COMM_WORLD);
  rank0_path = rank0_path.c_str();
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "this machine (" + rank0_path + ")");
  EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 7e-6);

  // SetProfile("") looks again: a newer file is taken, as at creation.
  if (WorldRank() == 0) std::ofstream(path) << ProfileWithAlpha(5e-6);
  ASSERT_TRUE(AllRanks((*comm)->SetProfile("").ok()));
  EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 5e-6);
  // With none saved, the shipped profile.
  if (WorldRank() == 0) unlink(path.c_str());
  ASSERT_TRUE(AllRanks((*comm)->SetProfile("").ok()));
  EXPECT_THAT((*comm)->auto_choice().profile_source(), StartsWith("built-in"));
}

TEST_F(MachineProfileTest, TheApplicationsProfileWinsAndOffTurnsItOff) {
  const std::string dir = RankDir("wins");
  const std::string path = SavedPathIn(dir);
  std::ofstream(path) << ProfileWithAlpha(7e-6);
  const std::string named = dir + "/named.json";
  std::ofstream(named) << ProfileWithAlpha(3e-6);
  CommunicatorOptions options;
  options.profile_path = named;
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->auto_choice().profile().intra.alpha_s, 3e-6);
  setenv("KCOLL_PROFILE", named.c_str(), 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_EQ((*comm)->auto_choice().profile_source(), "KCOLL_PROFILE=" + named);
  unsetenv("KCOLL_PROFILE");
  setenv("KCOLL_MACHINE_PROFILES", "off", 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->auto_choice().profile_source(), StartsWith("built-in"));
}

// KCOLL_SHM_SLOTS: a count of slots per pair; 0 chooses, as unset; 1 and over 1024 are errors naming the variable.
TEST_F(MachineProfileTest, TheSlotCountVariableIsReadOrRefused) {
  setenv("KCOLL_MACHINE_PROFILES", "off", 1);
  setenv("KCOLL_SHM_SLOTS", "12", 1);
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  if ((*comm)->transport() != TransportKind::kShm) GTEST_SKIP() << "not over shared memory: " << (*comm)->execution();
  EXPECT_THAT((*comm)->execution(), HasSubstr(", 12 slots x "));
  for (const char* bad : {"1", "1025"}) {
    setenv("KCOLL_SHM_SLOTS", bad, 1);
    comm = Communicator::Create(MPI_COMM_WORLD);
    EXPECT_THAT(comm.status(), IsInvalidArgument(absl::StrCat("KCOLL_SHM_SLOTS: ", bad,
                                                              " is outside [2, 1024] (0 or unset: chosen)")));
  }
  setenv("KCOLL_SHM_SLOTS", "0", 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->execution(), Not(HasSubstr(", 12 slots x ")));
  unsetenv("KCOLL_SHM_SLOTS");
}

// The shared-memory settings the machine measured (the saved profile's shm_slot_bytes and shm_single_copy_bytes) are
// the transport's; KCOLL_SHM_SLOT_BYTES and KCOLL_SHM_SINGLE_COPY still win; the execution line says which settings
// were applied and where each came from.
TEST_F(MachineProfileTest, TheSavedShmSettingsSetTheTransport) {
  const std::string path = SavedPathIn(RankDir("shm_settings"));
  models::Profile measured;
  measured.intra = {1e-6, 1e-10};
  measured.inter = measured.intra;
  measured.shm_single_copy_bytes = 65536;
  measured.shm_slot_bytes = 131072;
  std::ofstream(path) << models::ProfileToJson(measured);
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  if ((*comm)->transport() != TransportKind::kShm) GTEST_SKIP() << "not over shared memory: " << (*comm)->execution();
  EXPECT_THAT((*comm)->execution(), HasSubstr(", 16 slots x 128K per pair (measured; profile: this machine ("));
  EXPECT_THAT((*comm)->execution(), ::testing::AnyOf(HasSubstr("single copy from 64K (measured; profile: this machine"),
                                                     HasSubstr("asked from 64K; the kernel does not let")));
  setenv("KCOLL_SHM_SINGLE_COPY", "0", 1);
  setenv("KCOLL_SHM_SLOT_BYTES", "32K", 1);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->execution(), HasSubstr(", 64 slots x 32K per pair (KCOLL_SHM_SLOT_BYTES)"));  // 2 MiB rings
  EXPECT_THAT((*comm)->execution(), HasSubstr("no single copy (KCOLL_SHM_SINGLE_COPY)"));
  unsetenv("KCOLL_SHM_SINGLE_COPY");
  unsetenv("KCOLL_SHM_SLOT_BYTES");
  // Single copy measured as never, no slot size measured: the slots, of the default size.
  measured.shm_single_copy_bytes = 0;
  measured.shm_slot_bytes.reset();
  std::ofstream(path) << models::ProfileToJson(measured);
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->execution(),
              HasSubstr(" per pair (default), no single copy (measured; profile: this machine ("));
  // None saved: the transport's defaults (the per-call choice for the collectives that only move data).
  unlink(path.c_str());
  comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->execution(),
              ::testing::AnyOf(HasSubstr(" per pair (default), single copy or the slots from 64K, chosen per call by "
                                         "their measured times (default; the collectives that reduce keep the slots)"),
                               HasSubstr(" per pair (default), no single copy (default: the kernel does not let"),
                               HasSubstr(" per pair (default), no single copy (default; the ranks take turns on the "
                                         "cores)")));
}

// A profile saved for another number of ranks describes another job (cores shared, links): not used.
TEST_F(MachineProfileTest, AnotherShapesProfileIsNotUsed) {
  const std::string dir = RankDir("shape");
  SavedPathIn(dir);
  const std::string other =
      absl::StrCat(dir, "/",
                   MachineProfileFileName(MachineName(), MakeTopology(0, std::vector<int>(WorldSize() + 1, 0), false),
                                          TransportKind::kShm));
  std::ofstream(other) << ProfileWithAlpha(7e-6);
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  EXPECT_THAT((*comm)->auto_choice().profile_source(), StartsWith("built-in"));
}

// A saved file that is not a profile fails Create on every rank, naming rank 0's file, whatever the others hold.
TEST_F(MachineProfileTest, ABadSavedProfileIsAnErrorOnEveryRank) {
  const std::string path = SavedPathIn(RankDir("bad"));
  if (WorldRank() == 0) {
    std::ofstream(path) << "{\"schema_version\": 1, \"intra\": ";
  } else {
    std::ofstream(path) << ProfileWithAlpha(7e-6);
  }
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  EXPECT_TRUE(AllRanks(!comm.ok()));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(comm.status().message(), HasSubstr("saved profile '"));
  EXPECT_THAT(comm.status().message(), HasSubstr("--save, or delete it"));
  // A directory where the file should be: not readable as a profile either.
  if (WorldRank() == 0) {
    unlink(path.c_str());
    ASSERT_TRUE(MakeDirectories(path).ok());
  }
  comm = Communicator::Create(MPI_COMM_WORLD);
  EXPECT_TRUE(AllRanks(!comm.ok()));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
