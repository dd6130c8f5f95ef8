#include "training/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace sgnn::training {

namespace {

constexpr char kMagic[8] = {'S', 'G', 'N', 'N', 'C', 'K', 'P', 'T'};
constexpr uint32_t kMaxRank = 8;

// ---- Encoding -------------------------------------------------------------

class Writer {
 public:
  template <typename T>
  void put(T value) {
    const auto* bytes = reinterpret_cast<const char*>(&value);
    buffer_.append(bytes, sizeof(T));
  }
  void put_string(const std::string& text) {
    put(static_cast<uint32_t>(text.size()));
    buffer_ += text;
  }
  void put_tensor(const std::string& name, const Tensor& tensor) {
    const Tensor host = tensor.to(Device::cpu());
    put_string(name);
    put(static_cast<uint8_t>(host.dtype()));
    put(static_cast<uint32_t>(host.dim()));
    for (const int64_t extent : host.shape()) put(extent);
    if (host.numel() > 0) buffer_.append(static_cast<const char*>(host.raw_data()), host.nbytes());
  }
  std::string& buffer() { return buffer_; }

 private:
  std::string buffer_;
};

Tensor int64_scalar(int64_t value) { return Tensor::from_vector(std::vector<int64_t>{value}, {1}); }
// Doubles kept as their bit patterns: the file restores them exactly.
Tensor double_bits(const std::vector<double>& values) {
  std::vector<int64_t> bits;
  for (double v : values) bits.push_back(std::bit_cast<int64_t>(v));
  return Tensor::from_vector(bits, {static_cast<int64_t>(bits.size())});
}

std::vector<std::pair<std::string, Tensor>> encode_state(const TrainingState& state, const Generator& generator) {
  std::vector<std::pair<std::string, Tensor>> entries;
  entries.emplace_back("trainer.epoch", int64_scalar(state.epoch));
  entries.emplace_back("trainer.best_epoch", int64_scalar(state.best_epoch));
  entries.emplace_back("trainer.epochs_without_improvement", int64_scalar(state.epochs_without_improvement));
  entries.emplace_back("trainer.stopped_early", int64_scalar(state.stopped_early ? 1 : 0));
  entries.emplace_back("trainer.best_scores", double_bits({state.best_validation_accuracy, state.best_validation_loss}));
  std::vector<double> history;
  for (const EpochRecord& r : state.history) {
    history.insert(history.end(), {static_cast<double>(r.epoch), r.train_loss, r.train_accuracy, r.validation_loss,
                                   r.validation_accuracy, r.epoch_ms});
  }
  entries.emplace_back("trainer.history", double_bits(history));
  entries.emplace_back("generator", Tensor::from_vector(std::vector<int64_t>{std::bit_cast<int64_t>(generator.seed()),
                                                                             std::bit_cast<int64_t>(generator.offset())},
                                                        {2}));
  return entries;
}

void write_atomically(const std::filesystem::path& path, const std::string& bytes) {
  const std::filesystem::path temporary = path.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(path.string(), 0, std::string("cannot create a checkpoint there: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string reason = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      throw IoError(path.string(), 0, "writing the checkpoint failed: " + reason);
    }
    written += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    throw IoError(path.string(), 0, "finishing the checkpoint failed: " + reason);
  }
}

// ---- Decoding -------------------------------------------------------------

struct Contents {
  std::string kind;
  std::map<std::string, Tensor> entries;
  std::vector<std::string> order;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::string file) : bytes_(bytes), file_(std::move(file)) {}
  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  std::string get_string(const char* what) {
    const auto size = get<uint32_t>(what);
    need(size, what);
    std::string text = bytes_.substr(position_, size);
    position_ += size;
    return text;
  }
  Tensor get_tensor(const std::string& name) {
    const auto dtype = get<uint8_t>("a tensor's dtype");
    if (dtype > static_cast<uint8_t>(DType::Int64)) fail("entry \"" + name + "\" has an unknown dtype");
    const auto rank = get<uint32_t>("a tensor's rank");
    if (rank > kMaxRank) fail("entry \"" + name + "\" has rank " + std::to_string(rank));
    Shape shape;
    for (uint32_t axis = 0; axis < rank; ++axis) {
      const auto extent = get<int64_t>("a tensor's shape");
      if (extent < 0 || extent > static_cast<int64_t>(bytes_.size())) fail("entry \"" + name + "\" has a bad shape");
      shape.push_back(extent);
    }
    Tensor tensor = Tensor::empty(shape, static_cast<DType>(dtype));
    need(tensor.nbytes(), "tensor data");
    if (tensor.numel() > 0) std::memcpy(tensor.raw_data(), bytes_.data() + position_, tensor.nbytes());
    position_ += tensor.nbytes();
    return tensor;
  }
  bool at_end() const { return position_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& reason) const { throw IoError(file_, 0, reason); }

 private:
  void need(std::size_t count, const char* what) const {
    if (count > bytes_.size() - position_) fail(std::string("truncated: the file ends inside ") + what);
  }
  const std::string& bytes_;
  std::string file_;
  std::size_t position_ = 0;
};

Contents read_contents(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path.string(), 0, "cannot open the checkpoint");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  std::string bytes(static_cast<std::size_t>(std::max<std::streamoff>(size, 0)), '\0');
  if (size < 0 || !in.read(bytes.data(), size)) throw IoError(path.string(), 0, "cannot read the checkpoint");
  const std::size_t header = sizeof kMagic + sizeof(uint32_t);
  if (bytes.size() < header + sizeof(uint32_t) || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw IoError(path.string(), 0, "not a sparsegnn checkpoint (bad magic or too short)");
  }
  uint32_t version = 0;
  std::memcpy(&version, bytes.data() + sizeof kMagic, sizeof version);
  if (version != kCheckpointVersion) {
    throw IoError(path.string(), 0, "checkpoint format version " + std::to_string(version) + ", this build reads " +
                                        std::to_string(kCheckpointVersion));
  }
  uint32_t stored_crc = 0;
  std::memcpy(&stored_crc, bytes.data() + bytes.size() - sizeof stored_crc, sizeof stored_crc);
  bytes.resize(bytes.size() - sizeof stored_crc);
  const auto crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
  if (crc != stored_crc) throw IoError(path.string(), 0, "checksum mismatch: the checkpoint is corrupt or truncated");

  Reader reader(bytes, path.string());
  (void)reader.get<std::array<char, sizeof kMagic>>("the magic");
  (void)reader.get<uint32_t>("the version");
  Contents contents;
  contents.kind = reader.get_string("the model kind");
  const auto count = reader.get<uint32_t>("the entry count");
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = reader.get_string("an entry name");
    Tensor tensor = reader.get_tensor(name);
    if (!contents.entries.emplace(name, tensor).second) reader.fail("entry \"" + name + "\" appears twice");
    contents.order.push_back(std::move(name));
  }
  if (!reader.at_end()) reader.fail("unexpected bytes after the last entry");
  return contents;
}

const Tensor& entry(const Contents& contents, const std::string& name, const std::filesystem::path& path) {
  const auto it = contents.entries.find(name);
  if (it == contents.entries.end()) throw IoError(path.string(), 0, "missing entry \"" + name + "\"");
  return it->second;
}

int64_t int64_entry(const Contents& contents, const std::string& name, const std::filesystem::path& path) {
  const Tensor& t = entry(contents, name, path);
  if (t.dtype() != DType::Int64 || t.numel() != 1) throw IoError(path.string(), 0, "entry \"" + name + "\" malformed");
  return t.data<int64_t>()[0];
}

std::vector<double> double_entry(const Contents& contents, const std::string& name, const std::filesystem::path& path) {
  const Tensor& t = entry(contents, name, path);
  if (t.dtype() != DType::Int64 || t.dim() != 1) throw IoError(path.string(), 0, "entry \"" + name + "\" malformed");
  std::vector<double> values;
  for (const int64_t bits : t.to_vector<int64_t>()) values.push_back(std::bit_cast<double>(bits));
  return values;
}

std::vector<Tensor> numbered(const Contents& contents, const std::string& prefix) {
  std::vector<Tensor> out;
  while (true) {
    const auto it = contents.entries.find(prefix + std::to_string(out.size()));
    if (it == contents.entries.end()) return out;
    out.push_back(it->second);
  }
}

TrainingState decode_state(const Contents& contents, const std::filesystem::path& path) {
  TrainingState state;
  state.epoch = int64_entry(contents, "trainer.epoch", path);
  state.best_epoch = int64_entry(contents, "trainer.best_epoch", path);
  state.epochs_without_improvement = int64_entry(contents, "trainer.epochs_without_improvement", path);
  state.stopped_early = int64_entry(contents, "trainer.stopped_early", path) != 0;
  const std::vector<double> scores = double_entry(contents, "trainer.best_scores", path);
  if (scores.size() != 2) throw IoError(path.string(), 0, "entry \"trainer.best_scores\" malformed");
  state.best_validation_accuracy = scores[0];
  state.best_validation_loss = scores[1];
  const std::vector<double> history = double_entry(contents, "trainer.history", path);
  if (history.size() % 6 != 0) throw IoError(path.string(), 0, "entry \"trainer.history\" malformed");
  for (std::size_t i = 0; i < history.size(); i += 6) {
    state.history.push_back(EpochRecord{static_cast<int64_t>(history[i]), history[i + 1], history[i + 2],
                                        history[i + 3], history[i + 4], history[i + 5]});
  }
  state.best_parameters = numbered(contents, "best.");
  return state;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Model& model, const Optimizer& optimizer,
                     const TrainingState& state, const Generator& generator) {
  std::vector<std::pair<std::string, Tensor>> entries;
  for (const auto& [name, parameter] : model.named_parameters()) entries.emplace_back("param." + name, parameter);
  const std::vector<Tensor> optimizer_state = optimizer.state();
  for (std::size_t i = 0; i < optimizer_state.size(); ++i) {
    entries.emplace_back("optimizer." + std::to_string(i), optimizer_state[i]);
  }
  for (std::size_t i = 0; i < state.best_parameters.size(); ++i) {
    entries.emplace_back("best." + std::to_string(i), state.best_parameters[i]);
  }
  for (auto& item : encode_state(state, generator)) entries.push_back(std::move(item));

  Writer writer;
  writer.buffer().append(kMagic, sizeof kMagic);
  writer.put(kCheckpointVersion);
  writer.put_string(model.kind());
  writer.put(static_cast<uint32_t>(entries.size()));
  for (const auto& [name, tensor] : entries) writer.put_tensor(name, tensor);
  const std::string& body = writer.buffer();
  const auto crc = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
  writer.put(crc);
  write_atomically(path, writer.buffer());
}

void load_checkpoint(const std::filesystem::path& path, Model& model, Optimizer& optimizer, Trainer& trainer,
                     Generator& generator) {
  const Contents contents = read_contents(path);
  const std::string where = path.string() + ": ";
  SGNN_CHECK(contents.kind == model.kind(), where, "the checkpoint holds a ", contents.kind, " model, not a ",
             model.kind());
  // Validate every parameter before touching any.
  const auto named = model.named_parameters();
  const auto stored_parameters = static_cast<std::size_t>(std::count_if(
      contents.order.begin(), contents.order.end(), [](const std::string& name) { return name.starts_with("param."); }));
  SGNN_CHECK(stored_parameters == named.size(), where, "the checkpoint has ", stored_parameters,
             " parameters, the model ", named.size(), " (another architecture?)");
  for (const auto& [name, parameter] : named) {
    const auto it = contents.entries.find("param." + name);
    SGNN_CHECK(it != contents.entries.end(), where, "no parameter \"", name, "\" in the checkpoint");
    SGNN_CHECK(it->second.shape() == parameter.shape() && it->second.dtype() == parameter.dtype(), where,
               "parameter \"", name, "\" is ", shape_str(it->second.shape()), " in the checkpoint, ",
               shape_str(parameter.shape()), " in the model (other sizes: --hidden, --heads, dataset?)");
  }
  TrainingState state = decode_state(contents, path);
  const std::vector<int64_t> generator_state = entry(contents, "generator", path).to_vector<int64_t>();
  if (generator_state.size() != 2) throw IoError(path.string(), 0, "entry \"generator\" malformed");
  // Optimizer::load_state and Trainer::set_state check their parts and change
  // nothing on failure; parameters are copied last, once all checks passed.
  const std::vector<Tensor> saved_optimizer_state = optimizer.state();
  optimizer.load_state(numbered(contents, "optimizer."));
  try {
    trainer.set_state(std::move(state));
  } catch (...) {
    optimizer.load_state(saved_optimizer_state);
    throw;
  }
  for (auto& [name, parameter] : model.named_parameters()) copy_into(parameter, contents.entries.at("param." + name));
  generator.reset(std::bit_cast<uint64_t>(generator_state[0]));
  generator.set_offset(std::bit_cast<uint64_t>(generator_state[1]));
}

}  // namespace sgnn::training
