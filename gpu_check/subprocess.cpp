#include "gpu_check/subprocess.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <system_error>

extern char** environ;

namespace cudnnlint::gpu {

namespace {

// A private directory, removed with what it holds when the run is over.
class PrivateDirectory {
 public:
  PrivateDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && base[0] == '/' ? base : "/tmp") + "/cudnnlint-framework-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~PrivateDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateDirectory(const PrivateDirectory&) = delete;
  PrivateDirectory& operator=(const PrivateDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

void write_file(const std::string& path, std::string_view text) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (fd.get() < 0) throw std::system_error(errno, std::generic_category(), "create " + path);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::system_error(errno, std::generic_category(), "write " + path);
    done += static_cast<std::size_t>(n);
  }
}

// The caller's environment with `overrides` set: built before fork (the child only execs).
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos) merged[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [name, value] : overrides) merged[name] = value;
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [name, value] : merged) out.push_back(name + "=" + value);
  return out;
}

// Reads both pipes until they close or the deadline passes.
void collect(ProgramRun& run, int out_fd, int err_fd, pid_t pid, const ProgramLimits& limits) {
  constexpr std::size_t kErrKeep = 8192;
  const auto deadline = std::chrono::steady_clock::now() + limits.time;
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_pipes = 2;
  char buffer[16384];
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      run.timed_out = true;
      ::kill(-pid, SIGKILL);
      return;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (auto& p : fds) {
      if (p.fd < 0 || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        p.fd = -1;
        --open_pipes;
        continue;
      }
      if (p.fd == out_fd) {
        const std::size_t room = limits.max_output - std::min(limits.max_output, run.out.size());
        run.out.append(buffer, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
      } else {
        run.err_tail.append(buffer, static_cast<std::size_t>(n));
        if (run.err_tail.size() > 2 * kErrKeep) run.err_tail.erase(0, run.err_tail.size() - kErrKeep);
      }
    }
  }
}

}  // namespace

ProgramRun run_python_program(const std::string& interpreter, std::string_view program,
                              const std::vector<std::pair<std::string, std::string>>& environment,
                              const ProgramLimits& limits) {
  ProgramRun run;
  std::unique_ptr<PrivateDirectory> directory;
  try {
    directory = std::make_unique<PrivateDirectory>();
    write_file(directory->path() + "/program.py", program);
  } catch (const std::exception& e) {
    run.error = e.what();
    return run;
  }
  const std::vector<std::string> env = environment_with(environment);
  std::vector<char*> envp;
  for (const auto& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  std::string script = directory->path() + "/program.py";
  std::string arg0 = interpreter, arg_b = "-B";
  char* argv[] = {arg0.data(), arg_b.data(), script.data(), nullptr};

  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return run.error = std::strerror(errno), run;
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return run.error = std::strerror(errno), run;
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) return run.error = std::strerror(errno), run;
  Fd exec_read(exec_pipe[0]), exec_write(exec_pipe[1]);
  Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));

  const pid_t pid = ::fork();
  if (pid < 0) return run.error = std::string("fork: ") + std::strerror(errno), run;
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    if (::chdir(directory->path().c_str()) != 0) ::_exit(126);
    ::dup2(null_in.get(), 0);
    ::dup2(out_write.get(), 1);
    ::dup2(err_write.get(), 2);
    ::execve(arg0.c_str(), argv, envp.data());
    const int code = errno;
    [[maybe_unused]] const ssize_t ignored = ::write(exec_write.get(), &code, sizeof code);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that the kill below reaches the group whichever runs first
  out_write.reset();
  err_write.reset();
  exec_write.reset();
  int exec_errno = 0;
  ssize_t got;
  do got = ::read(exec_read.get(), &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.error = "cannot run " + interpreter + ": " + std::strerror(exec_errno);
    return run;
  }
  run.started = true;
  collect(run, out_read.get(), err_read.get(), pid, limits);
  if (!run.timed_out) ::kill(-pid, SIGKILL);  // whatever the program left running in its group
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  return run;
}

}  // namespace cudnnlint::gpu
