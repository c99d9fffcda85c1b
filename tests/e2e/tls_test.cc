// HTTPS against the real binary (--tls-cert/--tls-key) with self-signed certificates made by the
// openssl command: verified clients are served, keep-alive and large bodies included; plain HTTP
// and untrusted or outdated clients fail cleanly; bad files stop `serve` naming the file; a silent
// or trickling handshake is cut off at the header deadline and never delays a stop; the CLI and
// `mcp --server` trust a private CA through POWERCONTEXT_TLS_CA.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct CertFiles {
  std::string cert, key;
};

// A self-signed certificate for 127.0.0.1 (its own CA), valid for a day.
CertFiles MakeCert(const std::string& dir, const std::string& name) {
  CertFiles f{dir + "/" + name + ".pem", dir + "/" + name + ".key"};
  std::string cmd =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "
      "/CN=127.0.0.1"
      " -addext subjectAltName=IP:127.0.0.1 -keyout '" +
      f.key + "' -out '" + f.cert + "' >'" + dir + "/openssl.log' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0)
      << "needs the openssl command (scripts/install-deps installs it)";
  return f;
}

std::unique_ptr<httplib::SSLClient> Trusting(int port, const std::string& ca) {
  auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
  if (!ca.empty()) c->set_ca_cert_path(ca);
  c->enable_server_certificate_verification(true);
  c->set_connection_timeout(2, 0);
  c->set_read_timeout(5, 0);
  return c;
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// True when the server closed the connection within `timeout_ms`.
bool ClosedWithin(int fd, int timeout_ms) {
  const auto until = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char c;
  while (Clock::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN)) return true;
    }
  }
  return false;
}

// Sets an environment variable for the CLI runs of one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    certs = MakeCert(dir.path(), "server");
    server.set_tls(certs.cert, certs.key);
    ASSERT_TRUE(server.Start()) << Slurp(server.log_path());
    port = server.port();
  }

  TempDir dir;
  CertFiles certs;
  ServerProcess server{dir.path() + "/data"};
  int port = 0;
};

TEST_F(Tls, VerifiedClientsAreServed) {
  EXPECT_NE(Slurp(server.log_path()).find("serving https://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << Slurp(server.log_path());
  auto client = Trusting(port, certs.cert);
  auto live = client->Get("/health/live");
  ASSERT_TRUE(live) << httplib::to_string(live.error());
  EXPECT_EQ(live->status, 200);
  const std::string remember =
      R"({"scope_id": "project:tls", "kind": "fact", "text": "served over TLS")";
  auto written = client->Post("/v1/memory/remember", remember + "}", "application/json");
  ASSERT_TRUE(written);
  EXPECT_EQ(written->status, 200) << written->body;
  EXPECT_EQ(json::parse(written->body)["memory"]["revision"], 1) << written->body;

  // One connection, many requests; a body of many TLS records (16 KiB each) is read whole.
  client->set_keep_alive(true);
  for (int i = 0; i < 20; ++i) {
    auto listed = client->Get("/v1/scopes");
    ASSERT_TRUE(listed) << i;
    EXPECT_EQ(listed->status, 200);
  }
  auto padded = client->Post("/v1/memory/remember", remember + std::string(120 * 1024, ' ') + "}",
                             "application/json");
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->status, 200) << padded->body;
  EXPECT_EQ(json::parse(padded->body)["memory"]["revision"], 1)
      << "the same entry: " << padded->body;
}

TEST_F(Tls, PlainHttpToTheTlsPortIsToldToUseHttps) {
  httplib::Client plain("127.0.0.1", port);
  plain.set_read_timeout(5, 0);
  auto res = plain.Get("/health/live");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 400);
  json body = json::parse(res->body, nullptr, false);
  EXPECT_EQ(body["error"]["code"], "invalid_request") << res->body;
  EXPECT_NE(res->body.find("https://"), std::string::npos) << res->body;
  // The server goes on serving TLS.
  auto live = Trusting(port, certs.cert)->Get("/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
}

TEST_F(Tls, UntrustedAndOutdatedClientsFail) {
  // The system's CAs do not know a self-signed certificate; neither does another one.
  auto system_cas = Trusting(port, "");
  auto res = system_cas->Get("/health/live");
  EXPECT_FALSE(res);
  EXPECT_EQ(res.error(), httplib::Error::SSLServerVerification);
  CertFiles other = MakeCert(dir.path(), "other");
  res = Trusting(port, other.cert)->Get("/health/live");
  EXPECT_FALSE(res);
  EXPECT_EQ(res.error(), httplib::Error::SSLServerVerification);

  // TLS 1.2 is the minimum: the same client capped at 1.2 is served, at 1.1 refused (security
  // level 0, or the client's own OpenSSL would refuse 1.1 before the server could).
  for (int version : {TLS1_2_VERSION, TLS1_1_VERSION}) {
    auto capped = Trusting(port, certs.cert);
    SSL_CTX_set_security_level(capped->ssl_context(), 0);
    SSL_CTX_set_min_proto_version(capped->ssl_context(), TLS1_VERSION);
    SSL_CTX_set_max_proto_version(capped->ssl_context(), version);
    auto answer = capped->Get("/health/live");
    EXPECT_EQ(static_cast<bool>(answer), version == TLS1_2_VERSION) << version;
  }
}

TEST_F(Tls, SilentAndTricklingHandshakesAreCutOffAtTheHeaderDeadline) {
  // 70 connections that never start a handshake, and one that sends a TLS record header and then
  // one byte of it every 250 ms: a new client is still served at once.
  std::vector<int> silent;
  for (int i = 0; i < 70; ++i) {
    int fd = Connect(port);
    ASSERT_GE(fd, 0);
    silent.push_back(fd);
  }
  const auto opened = Clock::now();
  int trickle = Connect(port);
  ASSERT_GE(trickle, 0);
  const char kRecordHeader[] = {0x16, 0x03, 0x01, 0x02, 0x00};  // a 512-byte handshake record
  ASSERT_EQ(send(trickle, kRecordHeader, sizeof kRecordHeader, MSG_NOSIGNAL), 5);

  const auto t0 = Clock::now();
  auto fresh = Trusting(port, certs.cert)->Get("/health/live");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  ASSERT_TRUE(fresh) << "a new TLS client was not served beside 70 silent connections";
  EXPECT_EQ(fresh->status, 200);
  EXPECT_LT(ms, 2000);
  std::cout << "new TLS client served in " << ms << " ms beside 70 silent connections\n";

  bool closed = false;
  for (int i = 0; i < 40 && !closed; ++i) {  // 10 s at most; the deadline is 5 s
    (void)send(trickle, "X", 1, MSG_NOSIGNAL);
    closed = ClosedWithin(trickle, 250);
  }
  EXPECT_TRUE(closed) << "a handshake trickled for 10 s was never cut off";
  for (int fd : silent)
    EXPECT_TRUE(ClosedWithin(fd, 1000)) << "a silent connection outlived the deadline";
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - opened).count();
  EXPECT_LE(s, 9) << "seconds until every slow connection was closed";
  close(trickle);
  for (int fd : silent) close(fd);
}

TEST_F(Tls, StopsAtOnceBesideSilentHandshakes) {
  std::vector<int> silent;
  for (int i = 0; i < 5; ++i) silent.push_back(Connect(port));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // their handshakes have begun
  const auto t0 = Clock::now();
  const int status = server.Stop();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_LT(ms, 2000) << "a stop waited for silent handshakes (the header deadline is 5 s)";
  for (int fd : silent) close(fd);
}

TEST_F(Tls, CliAndMcpTrustTheCaInPowercontextTlsCa) {
  const std::string url = server.url();
  ASSERT_EQ(url.rfind("https://", 0), 0u);
  {
    ScopedEnv ca("POWERCONTEXT_TLS_CA", certs.cert);
    CliResult made = RunCli({"scope", "create", "project:cli-tls", "--server", url});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    CliResult listed = RunCli({"scope", "list", "--server", url});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_NE(listed.out.find("project:cli-tls"), std::string::npos) << listed.out;
    CliResult mcp = RunCli(
        {"mcp", "--server", url},
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_scopes","arguments":{}}})"
        "\n");
    EXPECT_EQ(mcp.exit_code, 0) << mcp.err;
    EXPECT_NE(mcp.out.find("project:cli-tls"), std::string::npos) << mcp.out;
  }
  // Without it the certificate is not trusted, and the error says what to do.
  CliResult untrusted = RunCli({"scope", "list", "--server", url});
  EXPECT_NE(untrusted.exit_code, 0);
  EXPECT_NE(untrusted.err.find("POWERCONTEXT_TLS_CA"), std::string::npos) << untrusted.err;
  {
    ScopedEnv ca("POWERCONTEXT_TLS_CA", dir.path() + "/missing-ca.pem");
    CliResult missing = RunCli({"scope", "list", "--server", url});
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(missing.err.find("missing-ca.pem"), std::string::npos) << missing.err;
  }
  // An http:// URL for this server is told to use https://.
  CliResult plain =
      RunCli({"scope", "list", "--server", "http://127.0.0.1:" + std::to_string(server.port())});
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_NE(plain.err.find("https://"), std::string::npos) << plain.err;
}

TEST(TlsFiles, ServeRefusesToStartNamingTheBadFile) {
  TempDir dir;
  CertFiles good = MakeCert(dir.path(), "good");
  CertFiles other = MakeCert(dir.path(), "other");
  const std::string garbage = dir.path() + "/garbage.key";
  std::ofstream(garbage) << "not a key\n";
  const std::string missing = dir.path() + "/missing.pem";
  const std::string encrypted = dir.path() + "/encrypted.key";
  ASSERT_EQ(std::system(("openssl pkey -in '" + good.key + "' -aes256 -passout pass:secret -out '" +
                         encrypted + "'")
                            .c_str()),
            0);
  struct Case {
    std::string cert, key, expected;
  };
  const std::vector<Case> cases = {
      {missing, good.key, "tls_cert " + missing + ": No such file or directory"},
      {good.cert, missing, "tls_key " + missing + ": No such file or directory"},
      {garbage, good.key, "tls_cert " + garbage + ": no PEM certificate chain in it"},
      {good.cert, garbage, "tls_key " + garbage + ": no PEM private key in it"},
      {good.cert, encrypted,
       "tls_key " + encrypted + ": the key is encrypted"},  // never a passphrase prompt
      {good.cert, other.key,
       "tls_key " + other.key + " does not match the certificate in tls_cert " + good.cert},
      {good.cert, "", "tls_cert and tls_key go together"},
  };
  int i = 0;
  for (const Case& c : cases) {
    std::vector<std::string> args = {
        "serve",      "--data", dir.path() + "/data" + std::to_string(i), "--listen", "127.0.0.1:0",
        "--tls-cert", c.cert};
    if (!c.key.empty()) args.insert(args.end(), {"--tls-key", c.key});
    auto [code, err] = RunToExit(args, dir.path() + "/err" + std::to_string(i++));
    EXPECT_GT(code, 0) << c.expected << "\n" << err;  // 1 from serve, 2 from the configuration
    EXPECT_NE(err.find(c.expected), std::string::npos) << err;
    EXPECT_EQ(err.find("serving"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace pc::testing
