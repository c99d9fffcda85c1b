// Reading files and pipes within limits (common/bounded_read.h): regular files only where a file
// is expected, FIFOs and devices refused at once rather than waited on or read forever, symbolic
// links refused unless followed on purpose, sizes capped with the limit in the message, and a big
// file's tail read from a line start with the lines before it counted.
#include "common/bounded_read.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace pc {
namespace {

using pc::testing::TempDir;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(ReadBoundedFile, ReadsARegularFileUpToItsLimit) {
  TempDir dir;
  const std::string f = dir.path() + "/a.txt";
  Write(f, "hello\n");
  auto r = ReadBoundedFile(f, 6);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "hello\n");
  auto big = ReadBoundedFile(f, 5);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kTooLarge);
  EXPECT_NE(big.status().message().find("over the limit of 5 bytes"), std::string::npos)
      << big.status().message();
  EXPECT_TRUE(ReadBoundedFile(f, 16u << 20).ok());
  EXPECT_EQ(ByteLimitText(16u << 20), "16 MiB");
  EXPECT_EQ(ByteLimitText(4096), "4 KiB");
  auto missing = ReadBoundedFile(dir.path() + "/none", 10);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot read it"), std::string::npos);
}

TEST(ReadBoundedFile, RefusesDevicesFifosDirectoriesAtOnce) {
  TempDir dir;
  const std::string fifo = dir.path() + "/f";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = ReadBoundedFile(fifo, 1 << 20);  // nobody ever writes it: a blocking open would hang
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a FIFO, not a regular file"), std::string::npos)
      << r.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  auto zero = ReadBoundedFile("/dev/zero", 1 << 20, FollowLinks::kYes);  // never ends
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("character device"), std::string::npos)
      << zero.status().message();
  EXPECT_FALSE(ReadBoundedFile(dir.path(), 1 << 20).ok());
  EXPECT_FALSE(ReadFileTail(fifo, 10, 100).ok());
}

TEST(ReadBoundedFile, ALinkIsFollowedOnlyOnPurpose) {
  TempDir dir;
  Write(dir.path() + "/target", "secret\n");
  const std::string link = dir.path() + "/link.md";
  std::filesystem::create_symlink(dir.path() + "/target", link);
  auto refused = ReadBoundedFile(link, 100);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("symbolic link"), std::string::npos)
      << refused.status().message();
  auto followed = ReadBoundedFile(link, 100, FollowLinks::kYes);
  ASSERT_TRUE(followed.ok());
  EXPECT_EQ(*followed, "secret\n");
}

TEST(ReadFileTail, ASmallFileWholeABigOneFromALineStartWithItsLinesCounted) {
  TempDir dir;
  const std::string f = dir.path() + "/t.jsonl";
  Write(f, "one\ntwo\nthree\nfour\n");  // 19 bytes
  auto whole = ReadFileTail(f, 100, 1000);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->text, "one\ntwo\nthree\nfour\n");
  EXPECT_EQ(whole->skipped_lines, 0);
  // The last 8 bytes are "ee\nfour\n": "three" is cut, so the tail is "four\n", line 4.
  auto tail = ReadFileTail(f, 8, 1000);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->text, "four\n");
  EXPECT_EQ(tail->skipped_lines, 3);
  EXPECT_EQ(tail->skipped_bytes, 14u);
  // A cut exactly at a line start keeps that line.
  auto exact = ReadFileTail(f, 11, 1000);  // "three\nfour\n"
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->text, "three\nfour\n");
  EXPECT_EQ(exact->skipped_lines, 2);
  // One line longer than the tail: nothing whole in it.
  Write(f, "first\n" + std::string(100, 'x'));
  auto none = ReadFileTail(f, 10, 1000);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->text, "");
  auto over = ReadFileTail(f, 10, 50);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Code::kTooLarge);
}

TEST(ReadBoundedFd, CapsAPipeAndWaitsOnlySoLong) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const std::string more(12000, 'z');  // fits in the pipe's buffer: written before it is read
  ASSERT_EQ(write(fds[1], more.data(), more.size()), static_cast<ssize_t>(more.size()));
  close(fds[1]);
  auto capped = ReadBoundedFd(fds[0], 10000, 0, "standard input");
  close(fds[0]);
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.status().code(), Code::kTooLarge);
  EXPECT_NE(capped.status().message().find("standard input is over the limit of 10000 bytes"),
            std::string::npos);

  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "{}", 2), 2);  // written, never closed
  const auto t0 = std::chrono::steady_clock::now();
  auto stalled = ReadBoundedFd(fds[0], 100, 200, "the hook input");
  EXPECT_FALSE(stalled.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  close(fds[1]);
  auto closed = ReadBoundedFd(fds[0], 100, 200, "the hook input");
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(*closed, "");  // what was written was consumed by the first read
  close(fds[0]);
}

}  // namespace
}  // namespace pc
