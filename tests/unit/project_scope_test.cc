// The default scope of a project (hooks/project_scope.h): the same ids PowerContext's own plugins
// derive, so two checkouts of one repository, and both hosts, share one memory.
#include "hooks/project_scope.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/sha256.h"
#include "test_util.h"

namespace pc {
namespace {

TEST(ProjectScope, RemotesNormaliseAsThePluginsDo) {
  EXPECT_EQ(NormalizeGitRemote("git@github.com:oceanbase/powercontext.git"),
            "github.com/oceanbase/powercontext");
  EXPECT_EQ(NormalizeGitRemote("https://user:tok@GitHub.com/oceanbase/powercontext.git"),
            "github.com/oceanbase/powercontext");
  EXPECT_EQ(NormalizeGitRemote("ssh://git@host:2222/a/b.git"), "host:2222/a/b");
  EXPECT_EQ(NormalizeGitRemote("https://github.com:443/a/b"), "github.com:443/a/b");
  EXPECT_EQ(NormalizeGitRemote("  git://example.org//Team/Repo/  "), "example.org/Team/Repo");
  EXPECT_EQ(NormalizeGitRemote("github.com:Acme/Orders.git"), "github.com/Acme/Orders");
  for (const char* local :
       {"", "/srv/repo.git", "../x", "file:///srv/repo.git", "ftp://h/a", "https://h/"})
    EXPECT_FALSE(NormalizeGitRemote(local).has_value()) << local;
}

// Issue 27: a repository's .git/config controls the remote every hook reads. A 5 MB url overflowed
// std::regex's stack; a control character in a long one made it backtrack for seconds (the
// memory_md fuzzer's 733-byte input took 18 s). Neither names a scope now, at once.
TEST(ProjectScope, HostileRemotesNameNoScopeQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(NormalizeGitRemote("https://h/" + std::string(5000000, 'a')).has_value());
  EXPECT_FALSE(NormalizeGitRemote("https://u" + std::string(3000, '~') + "\r|x").has_value());
  EXPECT_FALSE(NormalizeGitRemote("git@h:" + std::string(3000, 'a') + "\rb").has_value());
  EXPECT_FALSE(
      NormalizeGitRemote("https://u" + std::string(700, '~') + "\n\n| service | host |\n| --- |")
          .has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_EQ(NormalizeGitRemote("https://h/" + std::string(4000, 'a')),
            "h/" + std::string(4000, 'a'));
}

TEST(ProjectScope, ARepositorysCheckoutsShareOneScopeAndAPlainFolderIsItsPath) {
  if (std::system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "git is not installed";
  testing::TempDir dir;
  const std::string a = dir.path() + "/checkout-a", b = dir.path() + "/checkout-b",
                    plain = dir.path() + "/plain";
  for (const std::string& d : {a, b, plain}) std::filesystem::create_directories(d + "/src");
  for (const std::string& d : {a, b}) {
    const std::string cmd = "git -C " + d + " init -q && git -C " + d +
                            " remote add origin git@github.com:acme/orders-importer.git";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  EXPECT_EQ(DeriveProjectScope(a), "git:github.com/acme/orders-importer");
  EXPECT_EQ(DeriveProjectScope(b + "/src"),
            "git:github.com/acme/orders-importer");  // from a subfolder
  const std::string root = std::filesystem::canonical(plain).string();
  EXPECT_EQ(DeriveProjectScope(plain), "local:" + Sha256Hex(root));
  EXPECT_EQ(DeriveProjectScope(plain + "/src"),
            "local:" + Sha256Hex(root + "/src"));  // no repository: the folder
}

}  // namespace
}  // namespace pc
