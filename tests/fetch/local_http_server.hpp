// A real HTTP server on 127.0.0.1 for the download tests:
// tests/tools/range_server.py (Range requests, transfers cut short on
// purpose), started with python3 and stopped (SIGTERM) by the destructor.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/graph_io/temp_files.hpp"

extern char** environ;

namespace sgnn::testing {

class LocalHttpServer {
 public:
  // Serves the files under `root`; `options` are range_server.py's flags
  // (e.g. {"--cut-after", "1000"}). The request log is at log_file().
  explicit LocalHttpServer(const std::filesystem::path& root, const std::vector<std::string>& options = {}) {
    const std::filesystem::path port_file = root.parent_path() / (root.filename().string() + ".port");
    log_file_ = root.parent_path() / (root.filename().string() + ".log");
    std::filesystem::remove(port_file);
    std::vector<std::string> arguments = {"python3", SGNN_RANGE_SERVER, root.string(), "--port-file",
                                          port_file.string(), "--log", log_file_.string()};
    arguments.insert(arguments.end(), options.begin(), options.end());
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, "python3", nullptr, nullptr, argv.data(), environ) != 0) {
      throw std::runtime_error("cannot start python3 " SGNN_RANGE_SERVER);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!std::filesystem::exists(port_file)) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("range_server.py exited before serving");
      }
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("range_server.py did not start");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream(port_file) >> port_;
  }
  ~LocalHttpServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  LocalHttpServer(const LocalHttpServer&) = delete;
  LocalHttpServer& operator=(const LocalHttpServer&) = delete;

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string url(const std::string& file) const { return base_url() + "/" + file; }
  // Each request as "<path> <Range header or ->", one per line.
  std::string log() const { return std::filesystem::exists(log_file_) ? read_bytes(log_file_) : ""; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_file_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then released).
inline int closed_local_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

}  // namespace sgnn::testing
