// The language server's parts: the base protocol's framing, the open documents' positions, the
// background queue of its slow analyses, and the streams it serves on.
#include "core/uri.h"
#include "server/background.h"
#include "server/server.h"
#include "server/documents.h"
#include "server/transport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace cudnnlint::server {
namespace {

TEST(ServerTransport, ReadsFramedMessagesAndSkipsMalformedOnes) {
  std::istringstream in(
      "Content-Length: 2\r\n\r\n{}"
      "content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 7\r\n\r\n[1,2,3]"
      "Content-Length: x1\r\n\r\n"
      "no colon here\r\nContent-Length: 1\r\n\r\n1"
      "Content-Length: 10\r\n\r\nshort");
  auto first = read_message(in);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "{}");
  EXPECT_EQ(first->error, "");
  auto second = read_message(in);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "[1,2,3]");  // header names in any case, other headers ignored
  auto bad_length = read_message(in);
  ASSERT_TRUE(bad_length);
  EXPECT_EQ(bad_length->error, "bad Content-Length 'x1'");
  auto bad_line = read_message(in);
  ASSERT_TRUE(bad_line);
  EXPECT_EQ(bad_line->error, "malformed header line 'no colon here'");
  EXPECT_EQ(bad_line->body, "");
  auto truncated = read_message(in);
  ASSERT_TRUE(truncated);
  EXPECT_EQ(truncated->error, "the stream ended inside a message");
  EXPECT_FALSE(read_message(in));
}

TEST(ServerTransport, WritesTheLengthInBytes) {
  std::ostringstream out;
  write_message(out, "{\"a\":\"零\"}");
  EXPECT_EQ(out.str(), "Content-Length: 11\r\n\r\n{\"a\":\"零\"}");
}

std::string framed(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

TEST(ServerTransport, ServingUntiesTheInputAndTheLogFromTheOutput) {
  // As std::cin and std::cerr are tied to std::cout: a read or a log line would flush the output
  // from the reading thread while the background thread writes a message (a message sent twice).
  std::ostringstream out, log;
  std::istringstream in(framed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})") +
                        framed(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") + framed(R"({"jsonrpc":"2.0","method":"exit"})"));
  in.tie(&out);
  log.tie(&out);
  EXPECT_EQ(serve(in, out, log), 0);
  EXPECT_EQ(in.tie(), nullptr);
  EXPECT_EQ(log.tie(), nullptr);
  EXPECT_NE(out.str().find(R"("id":2)"), std::string::npos);
}

TEST(ServerTransport, AMessageAfterABadContentLengthIsRead) {
  // A bad length leaves the body's end unknown: it runs into the next header, where the next
  // message starts. Each good message after each bad one is read.
  std::istringstream in("Content-Length: -5\r\n\r\n{}" + framed("[1]") +
                        "Content-Length: 99999999999999999999999\r\n\r\n[1,\n2]" + framed("[2]") +
                        "Content-Length: 300000000\r\n\r\n" + framed("[3]") +
                        "X-Original-Content-Length: 4\r\nContent-Length: 3\r\n\r\n[4]");
  std::vector<std::string> read;
  while (auto message = read_message(in)) read.push_back(message->error.empty() ? message->body : "error: " + message->error);
  EXPECT_EQ(read, (std::vector<std::string>{
                      "error: bad Content-Length '-5'", "[1]",
                      "error: Content-Length 99999999999999999999999 is above the 256 MiB limit",
                      "[2]",  // the body's first line ("[1,") is no header: dropped with the rest of it
                      "error: Content-Length 300000000 is above the 256 MiB limit", "[3]",
                      "[4]"}));  // a header that merely ends in Content-Length is another header
}

TEST(ServerTransport, AHeaderLineLongerThanTheBoundIsDiscardedAndTheNextMessageRead) {
  std::istringstream in("X-Junk: " + std::string(kMaxHeaderLine * 12, 'a') + "\r\nContent-Length: 2\r\n\r\n{}" +
                        framed("[1]") + "X-Junk: " + std::string(kMaxHeaderLine * 2, 'b'));
  auto first = read_message(in);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->error, "a header line longer than 8192 bytes (discarded)");
  EXPECT_EQ(first->body, "");
  auto second = read_message(in);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "[1]");
  auto unterminated = read_message(in);  // up to the end of the stream, without a newline
  ASSERT_TRUE(unterminated);
  EXPECT_EQ(unterminated->error, "a header line longer than 8192 bytes (discarded)");
  EXPECT_FALSE(read_message(in));
}

TEST(ServerTransport, JsonDepthIsCountedOutsideStrings) {
  EXPECT_TRUE(json_depth_within(R"({"a":[[1]]})", 3));
  EXPECT_FALSE(json_depth_within(R"({"a":[[1]]})", 2));
  EXPECT_TRUE(json_depth_within(R"(["[[[{{{", "\"[[[[", "\\", [1]])", 2));  // brackets in strings, escapes
  EXPECT_TRUE(json_depth_within("[]]]]][[1]]", 2));  // stray closers do not lend depth
  EXPECT_FALSE(json_depth_within(std::string(kMaxJsonDepth + 1, '['), kMaxJsonDepth));
  EXPECT_TRUE(json_depth_within(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'), kMaxJsonDepth));
}

TEST(ServerTransport, HostileFramesAreAnsweredAndTheServerGoesOn) {
  // JSON 100,000 levels deep (it overflowed the stack), a bad Content-Length, a header line past
  // the bound: each refused, and the requests after them answered.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::ostringstream out, log;
  std::istringstream in(framed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})") +
                        framed(R"({"jsonrpc":"2.0","id":)" + deep + R"(,"method":"foo"})") +
                        framed(R"({"jsonrpc":"2.0","method":"foo","params":)" + deep + "}") +
                        "Content-Length: -5\r\n\r\n{}" + "X-Junk: " + std::string(kMaxHeaderLine + 1, 'a') + "\r\n\r\n" +
                        framed(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") + framed(R"({"jsonrpc":"2.0","method":"exit"})"));
  EXPECT_EQ(serve(in, out, log), 0);
  const std::string answered = out.str();
  std::size_t refused = 0;
  for (std::size_t at = 0; (at = answered.find(R"("code":-32700)", at)) != std::string::npos; ++at) ++refused;
  EXPECT_EQ(refused, 2u);
  EXPECT_NE(answered.find("JSON nested deeper than 512 levels"), std::string::npos);
  EXPECT_NE(answered.find(R"("message":"cudnnlint: a message was skipped: bad Content-Length '-5'")"), std::string::npos);
  EXPECT_NE(answered.find("a header line longer than 8192 bytes"), std::string::npos);
  EXPECT_NE(answered.find(R"({"id":2,"jsonrpc":"2.0","result":null})"), std::string::npos) << answered.substr(0, 2000);
  EXPECT_NE(log.str().find("bad Content-Length '-5' (message skipped)"), std::string::npos);
}

TEST(ServerDocuments, PositionsCountUtf16UnitsOrUtf8Bytes) {
  // 'é' is 2 UTF-8 bytes and 1 UTF-16 unit; '𝔼' 4 bytes and 2 units.
  const Document doc("file:///m.py", "/m.py", 1, "aé𝔼b\r\nxyz\nlast");
  EXPECT_EQ(doc.offset_of({0, 3}, PositionEncoding::Utf16), 3u);   // a, é: the start of 𝔼
  EXPECT_EQ(doc.offset_of({0, 4}, PositionEncoding::Utf16), 7u);   // after 𝔼 (two units)
  EXPECT_EQ(doc.offset_of({0, 4}, PositionEncoding::Utf8), 3u);    // inside 𝔼: its start
  EXPECT_EQ(doc.offset_of({0, 7}, PositionEncoding::Utf8), 7u);
  EXPECT_EQ(doc.offset_of({0, 99}, PositionEncoding::Utf16), 8u);  // past the end: before \r\n
  EXPECT_EQ(doc.offset_of({1, 1}, PositionEncoding::Utf16), 11u);
  EXPECT_EQ(doc.offset_of({9, 0}, PositionEncoding::Utf16), doc.text().size());
  EXPECT_EQ(doc.position_of(7, PositionEncoding::Utf16), (LspPosition{0, 4}));
  EXPECT_EQ(doc.position_of(7, PositionEncoding::Utf8), (LspPosition{0, 7}));
  EXPECT_EQ(doc.position_of(11, PositionEncoding::Utf16), (LspPosition{1, 1}));
}

TEST(ServerDocuments, IncrementalEditsApplyInOrder) {
  Document doc("file:///m.py", "/m.py", 1, "bn = BN(8, eps=0)\nx = 1\n");
  doc.apply(LspRange{{0, 15}, {0, 16}}, "1e-5", PositionEncoding::Utf16);
  EXPECT_EQ(doc.text(), "bn = BN(8, eps=1e-5)\nx = 1\n");
  doc.apply(LspRange{{1, 0}, {2, 0}}, "", PositionEncoding::Utf16);  // delete a line
  EXPECT_EQ(doc.text(), "bn = BN(8, eps=1e-5)\n");
  doc.apply(LspRange{{1, 0}, {1, 0}}, "# 零\ny = 2\n", PositionEncoding::Utf16);  // insert at the end
  doc.apply(LspRange{{2, 0}, {2, 1}}, "z", PositionEncoding::Utf16);
  EXPECT_EQ(doc.text(), "bn = BN(8, eps=1e-5)\n# 零\nz = 2\n");
  doc.apply(std::nullopt, "whole", PositionEncoding::Utf16);
  EXPECT_EQ(doc.text(), "whole");
}

TEST(ServerDocuments, FileUrisBecomePathsAndBack) {
  EXPECT_EQ(path_of_uri("file:///home/a%20b/m.py"), "/home/a b/m.py");
  EXPECT_EQ(path_of_uri("file://localhost/tmp/x.py"), "/tmp/x.py");
  EXPECT_FALSE(path_of_uri("untitled:Untitled-1"));
  EXPECT_FALSE(path_of_uri("file://server/share/x.py"));
  EXPECT_EQ(file_uri("/home/a b/m.py"), "file:///home/a%20b/m.py");
  EXPECT_EQ(path_of_uri(file_uri("/tmp/零 #1.py")), "/tmp/零 #1.py");
}

}  // namespace
}  // namespace cudnnlint::server

// The background queue of the server's slow analyses: debounced, a newer job under the same key
// replaces one not started and cancels one running.
namespace cudnnlint::server {
namespace {

using namespace std::chrono_literals;

TEST(ServerBackground, ReplacesPendingJobsCancelsRunningOnesAndStopsCleanly) {
  std::mutex mutex;
  std::vector<std::string> ran;
  std::atomic<int> finished{0};
  std::atomic<int> started{0};
  BackgroundQueue queue(50ms);
  auto job = [&](std::string name, std::chrono::milliseconds length) {
    return [&, name, length](const std::atomic<bool>& cancelled) {
      ++started;
      const auto until = std::chrono::steady_clock::now() + length;
      while (std::chrono::steady_clock::now() < until && !cancelled) std::this_thread::sleep_for(1ms);
      const std::lock_guard lock(mutex);
      ran.push_back(name + (cancelled ? " cancelled" : " done"));
      ++finished;
    };
  };
  // Three schedules within the debounce: only the last runs.
  queue.schedule("a.cpp", job("a1", 0ms));
  queue.schedule("a.cpp", job("a2", 0ms));
  queue.schedule("a.cpp", job("a3", 0ms));
  for (int i = 0; i < 2500 && finished < 1; ++i) std::this_thread::sleep_for(2ms);
  // A long job, superseded while it runs: told to stop, then the newer one runs.
  queue.schedule("a.cpp", job("long", 10s));
  while (started < 2) std::this_thread::sleep_for(1ms);  // the long one is running
  queue.schedule("a.cpp", job("newer", 0ms));
  for (int i = 0; i < 2500 && finished < 3; ++i) std::this_thread::sleep_for(2ms);
  // Another key is not touched by a.cpp's; a cancelled pending job never runs.
  queue.schedule("b.cpp", job("b", 0ms));
  queue.schedule("c.cpp", job("c", 0ms));
  queue.cancel("c.cpp");
  for (int i = 0; i < 2500 && finished < 4; ++i) std::this_thread::sleep_for(2ms);
  std::this_thread::sleep_for(100ms);
  const std::lock_guard lock(mutex);
  EXPECT_EQ(ran, (std::vector<std::string>{"a3 done", "long cancelled", "newer done", "b done"}));
}

TEST(ServerBackground, DestructionCancelsTheRunningJob) {
  std::atomic<bool> saw_cancel{false};
  const auto started = std::chrono::steady_clock::now();
  {
    BackgroundQueue queue(0ms);
    std::atomic<bool> running{false};
    queue.schedule("x", [&](const std::atomic<bool>& cancelled) {
      running = true;
      while (!cancelled) std::this_thread::sleep_for(1ms);
      saw_cancel = true;
    });
    while (!running) std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(saw_cancel);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

}  // namespace
}  // namespace cudnnlint::server
