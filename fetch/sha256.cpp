#include "fetch/sha256.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/error.hpp"

namespace sgnn::graph_io {

std::string sha256_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) throw IoError(name, 0, detail::concat("cannot open for hashing: ", std::strerror(errno)));
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    throw IoError(name, 0, "OpenSSL could not start a SHA-256 digest");
  }
  std::vector<unsigned char> block(std::size_t{1} << 20);
  while (true) {
    const std::size_t got = std::fread(block.data(), 1, block.size(), in.get());
    if (got > 0 && EVP_DigestUpdate(context.get(), block.data(), got) != 1) {
      throw IoError(name, 0, "OpenSSL SHA-256 update failed");
    }
    if (got < block.size()) break;
  }
  if (std::ferror(in.get())) throw IoError(name, 0, detail::concat("read failed while hashing: ", std::strerror(errno)));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1) throw IoError(name, 0, "OpenSSL SHA-256 final failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace sgnn::graph_io
