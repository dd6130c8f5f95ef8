#include "fetch/fetch_dataset.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include "core/error.hpp"
#include "fetch/archive.hpp"
#include "graph_io/atomic_file.hpp"
#include "graph_io/readers/file_text.hpp"
#include "graph_io/readers/ogb_reader.hpp"
#include "graph_io/ogb_writer.hpp"
#include "graph_io/readers/planetoid_reader.hpp"
#include "fetch/sha256.hpp"

namespace sgnn::graph_io {

namespace {

namespace fs = std::filesystem;

// A dataset or downloaded file name: it becomes one path component.
void check_plain_name(const std::string& name, const char* what) {
  const bool plain = !name.empty() && name.front() != '.' &&
                     name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
                         std::string::npos;
  if (!plain) {
    throw InvalidArgument(detail::concat(what, " \"", name,
                                         "\" is not a plain name (letters, digits, '-', '_', '.'; not starting "
                                         "with '.')"));
  }
}

void make_folder(const fs::path& folder, const char* what) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw IoError(folder.string(), 0, detail::concat("cannot create the ", what, ": ", error.message()));
}

void remove_quietly(const fs::path& path) {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    throw IoError(to.string(), 0, detail::concat("cannot move ", from.string(), " here: ", std::strerror(errno)));
  }
}

// An exclusive lock on <work>/<name>.lock for the whole fetch, so two runs
// never share a staging folder or a part file.
class FetchLock {
 public:
  FetchLock(const fs::path& file, const std::string& name) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IoError(file.string(), 0, detail::concat("cannot create the lock file: ", std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw IoError(file.string(), 0,
                    detail::concat("another sgnn_data is fetching ", name, " into this folder (it holds this lock)"));
    }
  }
  ~FetchLock() { ::close(fd_); }  // releases the lock
  FetchLock(const FetchLock&) = delete;
  FetchLock& operator=(const FetchLock&) = delete;

 private:
  int fd_ = -1;
};

struct FetchedFile {
  std::string name;
  std::string url;
  int64_t bytes = 0;
  std::string sha256;
  bool verified = false;
};

std::string size_text(int64_t bytes) { return detail::concat(bytes, " bytes"); }

// Size and checksum against the catalogue; a mismatch deletes the file (a
// resumed download of it would stay wrong).
FetchedFile check_download(const RemoteFile& remote, const std::string& url, const fs::path& file) {
  FetchedFile fetched;
  fetched.name = remote.name;
  fetched.url = url;
  std::error_code error;
  fetched.bytes = static_cast<int64_t>(fs::file_size(file, error));
  if (error) throw IoError(file.string(), 0, detail::concat("cannot read its size: ", error.message()));
  if (remote.bytes >= 0 && fetched.bytes != remote.bytes) {
    remove_quietly(file);
    throw IoError(url, 0,
                  detail::concat("size mismatch: expected ", size_text(remote.bytes), ", got ",
                                 size_text(fetched.bytes), "; the download was deleted and nothing was placed"));
  }
  fetched.sha256 = sha256_file(file);
  if (remote.verified() && fetched.sha256 != remote.sha256) {
    remove_quietly(file);
    throw IoError(url, 0,
                  detail::concat("sha256 mismatch: expected ", remote.sha256, ", got ", fetched.sha256,
                                 "; the download was deleted and nothing was placed"));
  }
  fetched.verified = remote.verified();
  return fetched;
}

// Downloads (or reuses a complete earlier download of) every file of `entry`.
std::vector<FetchedFile> download_all(const CatalogEntry& entry, const std::string& mirror, const fs::path& folder,
                                      const FetchOptions& options, int64_t& downloaded_bytes) {
  std::vector<FetchedFile> fetched;
  for (const RemoteFile& remote : entry.files) {
    const std::string url = remote_file_url(entry, remote, mirror);
    const fs::path complete = folder / remote.name;
    const fs::path part = folder / (remote.name + ".part");
    std::error_code error;
    if (fs::exists(complete, error)) {
      if (options.on_step) options.on_step(detail::concat("reusing ", remote.name, " downloaded by an earlier run"));
      fetched.push_back(check_download(remote, url, complete));
      continue;
    }
    if (options.on_step) options.on_step(detail::concat("downloading ", url));
    DownloadOptions download;
    if (options.on_progress) {
      download.on_progress = [&](const DownloadProgress& progress) { options.on_progress(remote.name, progress); };
    }
    downloaded_bytes += download_file(url, part, download).received;
    fetched.push_back(check_download(remote, url, part));
    rename_or_throw(part, complete);
  }
  return fetched;
}

// The folder of an unpacked OGB zip that holds raw/: <unpacked>/<expected>
// when the catalogue names it, else the zip's top (raw/ at the top) or its
// one top-level folder.
fs::path ogb_root(const fs::path& unpacked, const std::string& expected, const std::string& archive_name) {
  std::error_code error;
  if (!expected.empty()) {
    if (fs::is_directory(unpacked / expected / "raw", error)) return unpacked / expected;
    throw IoError(archive_name, 0, detail::concat("the archive has no ", expected, "/raw/ folder (not OGB's layout)"));
  }
  if (fs::is_directory(unpacked / "raw", error)) return unpacked;
  std::vector<fs::path> folders;
  for (const fs::directory_entry& item : fs::directory_iterator(unpacked, error)) {
    if (item.is_directory(error)) folders.push_back(item.path());
  }
  if (folders.size() == 1 && fs::is_directory(folders.front() / "raw", error)) return folders.front();
  throw IoError(archive_name, 0,
                "no raw/ folder at the archive's top or inside its one top-level folder (not OGB's layout)");
}

// ogbn-mag is heterogeneous; its papers with their citations, features,
// labels and time split form a node-property dataset of the raw layout.
void assemble_mag_papers(const fs::path& mag, const fs::path& staging, const std::string& archive_name) {
  const fs::path raw = mag / "raw";
  const fs::path counts_file = raw / "num-node-dict.csv.gz";
  const std::string counts = read_file_text(counts_file);
  // Two lines: node type names, then their counts.
  const std::size_t newline = counts.find('\n');
  if (newline == std::string::npos) throw IoError(counts_file.string(), 0, "expected a header line and a count line");
  const std::string header = counts.substr(0, newline);
  std::string values = counts.substr(newline + 1);
  while (!values.empty() && (values.back() == '\n' || values.back() == '\r')) values.pop_back();
  int64_t papers = -1;
  std::size_t header_at = 0, value_at = 0;
  while (header_at <= header.size() && value_at <= values.size()) {
    const std::size_t header_end = std::min(header.find(',', header_at), header.size());
    const std::size_t value_end = std::min(values.find(',', value_at), values.size());
    if (header.substr(header_at, header_end - header_at) == "paper") {
      const std::string number = values.substr(value_at, value_end - value_at);
      char* end = nullptr;
      papers = std::strtoll(number.c_str(), &end, 10);
      if (number.empty() || *end != '\0' || papers <= 0) {
        throw IoError(counts_file.string(), 2, detail::concat("paper count \"", number, "\" is not a positive integer"));
      }
      break;
    }
    header_at = header_end + 1;
    value_at = value_end + 1;
  }
  if (papers < 0) throw IoError(counts_file.string(), 1, "no \"paper\" column");

  const fs::path cites = raw / "relations" / "paper___cites___paper";
  const fs::path target_raw = staging / "raw";
  const fs::path target_split = staging / "split" / "time";
  make_folder(target_raw, "staging folder");
  make_folder(target_split, "staging folder");
  const std::pair<fs::path, fs::path> moves[] = {
      {cites / "edge.csv.gz", target_raw / "edge.csv.gz"},
      {cites / "num-edge-list.csv.gz", target_raw / "num-edge-list.csv.gz"},
      {raw / "node-feat" / "paper" / "node-feat.csv.gz", target_raw / "node-feat.csv.gz"},
      {raw / "node-feat" / "paper" / "node_year.csv.gz", target_raw / "node_year.csv.gz"},
      {raw / "node-label" / "paper" / "node-label.csv.gz", target_raw / "node-label.csv.gz"},
      {mag / "split" / "time" / "paper" / "train.csv.gz", target_split / "train.csv.gz"},
      {mag / "split" / "time" / "paper" / "valid.csv.gz", target_split / "valid.csv.gz"},
      {mag / "split" / "time" / "paper" / "test.csv.gz", target_split / "test.csv.gz"},
  };
  for (const auto& [from, to] : moves) {
    std::error_code error;
    if (!fs::exists(from, error)) {
      throw IoError(archive_name, 0,
                    detail::concat("ogbn-mag's archive lacks ", from.lexically_relative(mag.parent_path()).string()));
    }
    rename_or_throw(from, to);
  }
  std::ofstream out(target_raw / "num-node-list.csv");
  out << papers << "\n";
  if (!out) throw IoError((target_raw / "num-node-list.csv").string(), 0, "cannot write");
}

void build_staging(const CatalogEntry& entry, const fs::path& downloads, const fs::path& work,
                   const fs::path& staging, const FetchOptions& options) {
  if (entry.format == CatalogFormat::Planetoid) {
    if (options.on_step) options.on_step("converting the Planetoid files to the OGB layout");
    const Dataset dataset = read_planetoid(downloads, entry.name);
    write_ogb_dataset(dataset, staging);
    return;
  }
  const fs::path archive = downloads / entry.files.front().name;
  const fs::path unpacked = work / "unpacked";
  if (options.on_step) options.on_step(detail::concat("unpacking ", entry.files.front().name));
  remove_quietly(unpacked);
  unpack_zip(archive, unpacked);
  const std::string archive_name = archive.string();
  if (entry.format == CatalogFormat::OgbMagPapers) {
    assemble_mag_papers(ogb_root(unpacked, entry.archive_folder, archive_name), staging, archive_name);
  } else {
    rename_or_throw(ogb_root(unpacked, entry.archive_folder, archive_name), staging);
  }
  remove_quietly(unpacked);
}

void check_count(const char* what, int64_t expected, int64_t got, std::string& differences) {
  if (expected < 0 || expected == got) return;
  differences += detail::concat(differences.empty() ? "" : ", ", what, " ", got, " (expected ", expected, ")");
}

// Loads the staging copy: every reader check applies, then the counts.
void check_loaded(const CatalogEntry& entry, const fs::path& staging, const fs::path& target) {
  const Dataset dataset = read_ogb_dataset(staging);
  const ExpectedCounts& e = entry.expected;
  std::string differences;
  check_count("nodes", e.nodes, dataset.num_nodes(), differences);
  check_count("edges", e.edges, dataset.edges.num_edges(), differences);
  check_count("features", e.features, dataset.features.defined() ? dataset.features.size(1) : 0, differences);
  check_count("classes", e.classes, dataset.num_classes, differences);
  check_count("train nodes", e.train, dataset.train_index.defined() ? dataset.train_index.numel() : 0, differences);
  check_count("valid nodes", e.valid, dataset.valid_index.defined() ? dataset.valid_index.numel() : 0, differences);
  check_count("test nodes", e.test, dataset.test_index.defined() ? dataset.test_index.numel() : 0, differences);
  if (!differences.empty()) {
    throw IoError(target.string(), 0,
                  detail::concat("the fetched data does not match the catalogue: ", differences));
  }
}

void write_record(const CatalogEntry& entry, const std::vector<FetchedFile>& files, const fs::path& staging) {
  const fs::path record = staging / "FETCHED.txt";
  std::ofstream out(record);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out << "# " << entry.name << ", fetched by sgnn_data (sparsegnn) at " << when << "\n";
  for (const FetchedFile& file : files) {
    out << "\nfile " << file.name << "\nurl " << file.url << "\nbytes " << file.bytes << "\nsha256 " << file.sha256
        << "\ncheck "
        << (file.verified ? "size and sha256 equal the catalogue's"
                          : "unverified: no published checksum is known; checked by the archive's CRCs (zips) "
                            "and by loading the dataset and comparing its counts")
        << "\n";
  }
  if (!out) throw IoError(record.string(), 0, "cannot write");
}

// Moves the finished staging folder to `target`; an existing copy is moved
// aside first and deleted after, so `target` always holds a whole dataset.
void place(const fs::path& staging, const fs::path& target, const fs::path& work) {
  std::error_code error;
  const fs::path replaced = work / "replaced";
  const bool existing = fs::exists(target, error);
  if (existing) {
    remove_quietly(replaced);
    rename_or_throw(target, replaced);
  }
  try {
    rename_or_throw(staging, target);
  } catch (...) {
    if (existing) (void)::rename(replaced.c_str(), target.c_str());
    throw;
  }
  fsync_folder(target.parent_path());
  remove_quietly(replaced);
}

FetchResult fetch(const CatalogEntry& entry, const std::string& mirror, const FetchOptions& options) {
  check_plain_name(entry.name, "dataset name");
  for (const RemoteFile& file : entry.files) check_plain_name(file.name, "file name");
  if (!entry.refusal.empty()) throw InvalidArgument(detail::concat(entry.name, ": ", entry.refusal));
  FetchResult result;
  const fs::path destination = options.destination.empty() ? fs::path(".") : options.destination;
  result.folder = destination / entry.name;
  std::error_code error;
  if (fs::exists(result.folder, error) && !options.replace) {
    result.already_present = true;
    return result;
  }
  make_folder(destination, "data folder");
  const fs::path work_root = destination / ".sgnn-fetch";
  make_folder(work_root, "working folder (is the data folder writable?)");
  const FetchLock lock(work_root / (entry.name + ".lock"), entry.name);
  const fs::path work = work_root / entry.name;
  const fs::path downloads = work / "download";
  const fs::path staging = work / "staging";
  make_folder(downloads, "download folder");
  remove_quietly(staging);  // what a killed run left

  const std::vector<FetchedFile> files = download_all(entry, mirror, downloads, options, result.downloaded_bytes);
  try {
    build_staging(entry, downloads, work, staging, options);
    if (options.on_step) options.on_step("checking that it loads with the expected counts");
    check_loaded(entry, staging, result.folder);
    write_record(entry, files, staging);
    place(staging, result.folder, work);
  } catch (const IoError& failure) {
    remove_quietly(staging);
    remove_quietly(work / "unpacked");
    // Checked downloads are sound and kept for the next attempt; an
    // unverified one may be what is wrong, so they all go.
    const bool all_checked =
        std::all_of(files.begin(), files.end(), [](const FetchedFile& file) { return file.verified; });
    if (!all_checked) remove_quietly(work);
    throw IoError(failure.file(), failure.line(),
                  failure.reason() + (all_checked ? "; nothing was placed (the checked downloads are kept for the "
                                                    "next attempt)"
                                                  : "; nothing was placed and the download was deleted"));
  } catch (...) {
    remove_quietly(staging);
    remove_quietly(work / "unpacked");
    throw;
  }
  remove_quietly(work);
  return result;
}

}  // namespace

FetchResult fetch_dataset(const CatalogEntry& entry, const FetchOptions& options) {
  std::string mirror = options.mirror;
  if (mirror.empty()) {
    if (const char* variable = std::getenv("SGNN_DATA_MIRROR"); variable != nullptr) mirror = variable;
  }
  return fetch(entry, mirror, options);
}

FetchResult fetch_ogb_zip(const std::string& name, const std::string& url, const FetchOptions& options) {
  const std::size_t slash = url.rfind('/');
  if (slash == std::string::npos || slash + 1 == url.size() || url.find("://") == std::string::npos) {
    throw InvalidArgument(detail::concat("\"", url, "\" is not a URL of a file (http(s)://host/path/file.zip)"));
  }
  CatalogEntry entry;
  entry.name = name;
  entry.format = CatalogFormat::OgbZip;
  entry.base_url = url.substr(0, slash);
  entry.files = {RemoteFile{url.substr(slash + 1), -1, ""}};
  return fetch(entry, "", options);
}

}  // namespace sgnn::graph_io
