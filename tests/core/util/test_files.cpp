// The one way AccelLab reads, lists and writes files (core/util/files.h): regular files only,
// bounded, never a hang on a FIFO or a symlink loop, and writes that are whole or not at all.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/error.h"
#include "core/util/files.h"

namespace fs = std::filesystem;
using core::util::Error;

namespace {

class FilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("accellab_files_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  std::string path(const std::string& name) const { return (m_dir / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(m_dir / name, std::ios::binary) << text; }
  std::string errorOf(const std::string& p, std::uint64_t cap = core::util::kMaxDataFileBytes) const {
    std::string why;
    EXPECT_FALSE(core::util::tryReadFile(p, cap, why).has_value()) << p;
    return why;
  }
  int filesIn() const {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(m_dir)) ++n;
    return n;
  }

  fs::path m_dir;
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_F(FilesTest, ARegularFileReadsWholeAndASymlinkToOneIsFollowed) {
  write("a.json", "{\"x\": 1}");
  fs::create_symlink(m_dir / "a.json", m_dir / "link.json");
  EXPECT_EQ(core::util::readFile(path("a.json"), 64), "{\"x\": 1}");
  EXPECT_EQ(core::util::readFile(path("link.json"), 64), "{\"x\": 1}");
}

TEST_F(FilesTest, DevZeroIsRefusedAtOnceAsADeviceNotReadForever) {
  fs::create_symlink("/dev/zero", m_dir / "zero.json");
  const std::string why = errorOf(path("zero.json"));
  EXPECT_TRUE(contains(why, "zero.json")) << why;
  EXPECT_TRUE(contains(why, "character device, not a regular file")) << why;
  EXPECT_FALSE(contains(why, "no such file")) << why;
  EXPECT_THROW(core::util::readFile("/dev/zero"), Error);
}

TEST_F(FilesTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(::mkfifo(path("pipe.json").c_str(), 0600), 0);
  const std::string why = errorOf(path("pipe.json"));  // would block forever if opened blocking
  EXPECT_TRUE(contains(why, "FIFO")) << why;
}

TEST_F(FilesTest, ASymlinkLoopAndAFolderAndAMissingFileEachSayWhat) {
  fs::create_symlink(m_dir / "b.json", m_dir / "a.json");
  fs::create_symlink(m_dir / "a.json", m_dir / "b.json");
  EXPECT_TRUE(contains(errorOf(path("a.json")), "symlink loop"));
  fs::create_directories(m_dir / "dir.json");
  EXPECT_TRUE(contains(errorOf(path("dir.json")), "folder"));
  EXPECT_TRUE(contains(errorOf(path("missing.json")), "no such file"));
}

TEST_F(FilesTest, AFileOverTheCapOfItsKindIsRefusedBeforeItIsRead) {
  write("big.json", "{}");
  fs::resize_file(m_dir / "big.json", std::uintmax_t{3} << 30);  // 3 GB, sparse
  const std::string why = errorOf(path("big.json"));
  EXPECT_TRUE(contains(why, "larger than a file of this kind can be (at most 1 MiB)")) << why;
}

TEST_F(FilesTest, APathWithTerminalEscapesIsShownNotObeyed) {
  const std::string why = errorOf(path("evil\x1b]0;pwned\x07\x1b[2J.json"));
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  EXPECT_EQ(why.find('\x07'), std::string::npos) << why;
  EXPECT_TRUE(contains(why, "\\x1b[2J")) << why;
}

TEST_F(FilesTest, ListingNeverThrowsAndNamesEveryEntryItSkips) {
  write("a.json", "{}");
  write("c.json", "{}");
  write("notes.txt", "x");
  write(".hidden.json", "{}");
  fs::create_symlink(m_dir / "loop2.json", m_dir / "loop1.json");
  fs::create_symlink(m_dir / "loop1.json", m_dir / "loop2.json");
  fs::create_symlink(m_dir / "gone.json", m_dir / "dangling.json");
  fs::create_symlink("/dev/zero", m_dir / "zero.json");
  ASSERT_EQ(::mkfifo(path("fifo.json").c_str(), 0600), 0);
  fs::create_directories(m_dir / "sub.json");
  core::util::FileListing listing;
  ASSERT_NO_THROW(listing = core::util::listFiles(m_dir.string(), {".json"}));
  EXPECT_EQ(listing.files, (std::vector<std::string>{path("a.json"), path("c.json")}));
  ASSERT_EQ(listing.warnings.size(), 5u);
  std::string all;
  for (const auto& w : listing.warnings) all += w + "\n";
  for (const char* name : {"loop1.json", "loop2.json", "dangling.json", "zero.json", "fifo.json"})
    EXPECT_TRUE(contains(all, name)) << all;
  EXPECT_TRUE(contains(all, "symlink loop")) << all;
  EXPECT_TRUE(core::util::listFiles(path("no-such-folder"), {".json"}).files.empty());
}

TEST_F(FilesTest, AWriteThatCannotFinishLeavesTheOldFileAndNoTemporary) {
  const std::string target = path("data.csv");
  write("data.csv", "the old export\n");
  const std::string big(11229, 'x');
  // A child process with a 4 KiB file-size limit: its writes past 4 KiB fail (EFBIG), as they
  // would on a full disk. The child reports through its exit code.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      core::util::writeFileAtomic(target, big);
    } catch (const Error& e) {
      const std::string what = e.what();
      ::_exit(contains(what, "data.csv") && contains(what, "left as it was") ? 0 : 2);
    }
    ::_exit(1);  // the write claimed success
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the cut write reported success; 2: the error did not name the file";
  EXPECT_EQ(core::util::readFile(target), "the old export\n");
  EXPECT_EQ(filesIn(), 1) << "a temporary file was left behind";
}

TEST_F(FilesTest, OnAFullDiskAWriteFailsAndKeepsTheOldFile) {
  // A real full file system where this machine lets us mount one (root); elsewhere the
  // file-size-limit test above covers the same path.
  const fs::path mnt = m_dir / "tiny";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=16k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
  const std::string target = (mnt / "run.json").string();
  core::util::writeFileAtomic(target, "{\"old\": true}\n");
  EXPECT_THROW(core::util::writeFileAtomic(target, std::string(64 << 10, 'x')), Error);
  EXPECT_EQ(core::util::readFile(target), "{\"old\": true}\n");
  int left = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(mnt)) ++left;
  EXPECT_EQ(left, 1);
  ::umount(mnt.c_str());
}

TEST_F(FilesTest, AnOutputIsNeverAnInputAndAnExistingOneNeedsForce) {
  write("run.jsonl", "measured\n");
  fs::create_symlink(m_dir / "run.jsonl", m_dir / "alias.jsonl");
  const std::vector<std::string> inputs{path("run.jsonl")};
  EXPECT_THROW(core::util::checkOutputPath(path("run.jsonl"), inputs, true, "--force"), Error);
  EXPECT_THROW(core::util::checkOutputPath(path("alias.jsonl"), inputs, true, "--force"), Error);
  try {
    core::util::checkOutputPath(path("alias.jsonl"), inputs, false, "--force");
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "is also an input")) << e.what();
  }
  write("device.json", "{}");
  try {
    core::util::checkOutputPath(path("device.json"), inputs, false, "--force");
    ADD_FAILURE() << "an existing output was accepted without --force";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "--force")) << e.what();
  }
  EXPECT_NO_THROW(core::util::checkOutputPath(path("device.json"), inputs, true, "--force"));
  EXPECT_NO_THROW(core::util::checkOutputPath(path("new.json"), inputs, false, "--force"));
  EXPECT_EQ(core::util::readFile(path("run.jsonl")), "measured\n");
}

TEST_F(FilesTest, InsideResolvesDotDotAndSymlinks) {
  fs::create_directories(m_dir / "data" / "sub");
  fs::create_symlink(fs::path("/etc"), m_dir / "data" / "escape");
  EXPECT_TRUE(core::util::isInside(path("data/sub/x.txt"), path("data")));
  EXPECT_TRUE(core::util::isInside(path("data"), path("data")));
  EXPECT_FALSE(core::util::isInside(path("data/../secret"), path("data")));
  EXPECT_FALSE(core::util::isInside(path("data/escape/passwd"), path("data")));
  EXPECT_FALSE(core::util::isInside(path("database"), path("data")));
}
