#pragma once
// The readers and writers the memory rows of the flag table (flagtable.cpp) point to: how
// each flag's values go into ServerSettings (or the model, the GPUs) and how a setting is
// spelled back. One pair per row; the value grammar itself is in flagvalues.h. Internal to
// core/flags. Pure functions.

#include "core/flags/flagtable.h"

#include <string_view>

namespace llamafit::settingflags {

// Readers (FlagReader)
std::optional<Error> readModel(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed);
std::optional<Error> readContext(std::string_view spelling, const FlagValues& values,
                                 ParsedServerArgs& parsed);
std::optional<Error> readParallel(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readKvUnified(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed);
std::optional<Error> readNoKvUnified(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed);
std::optional<Error> readCacheTypeK(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::optional<Error> readCacheTypeV(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::optional<Error> readFlashAttention(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed);
std::optional<Error> readBatch(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed);
std::optional<Error> readUbatch(std::string_view spelling, const FlagValues& values,
                                ParsedServerArgs& parsed);
std::optional<Error> readGpuLayers(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed);
std::optional<Error> readSwaFull(std::string_view spelling, const FlagValues& values,
                                 ParsedServerArgs& parsed);
std::optional<Error> readKvOffload(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed);
std::optional<Error> readNoKvOffload(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed);
std::optional<Error> readTensorSplit(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed);
std::optional<Error> readOverrideTensor(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed);
std::optional<Error> readCpuMoe(std::string_view spelling, const FlagValues& values,
                                ParsedServerArgs& parsed);
std::optional<Error> readCpuMoeLayers(std::string_view spelling, const FlagValues& values,
                                      ParsedServerArgs& parsed);
std::optional<Error> readLoadMode(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readRepack(std::string_view spelling, const FlagValues& values,
                                ParsedServerArgs& parsed);
std::optional<Error> readNoRepack(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readCacheRam(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed);
std::optional<Error> readContextCheckpoints(std::string_view spelling, const FlagValues& values,
                                            ParsedServerArgs& parsed);
std::optional<Error> readRpcServers(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::optional<Error> readGpu(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed);
std::optional<Error> readIntegratedGpu(std::string_view spelling, const FlagValues& values,
                                       ParsedServerArgs& parsed);
// Spellings older builds accepted and 0.7.0 rejects ("error: invalid argument: --no-mmap").
std::optional<Error> readLegacyMmap(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed);
std::optional<Error> readLegacyNoMmap(std::string_view spelling, const FlagValues& values,
                                      ParsedServerArgs& parsed);

// Writers (FlagWriter)
std::vector<FlagValues> writeContext(const ServerSettings& settings);
std::vector<FlagValues> writeParallel(const ServerSettings& settings);
std::vector<FlagValues> writeKvUnified(const ServerSettings& settings);
std::vector<FlagValues> writeNoKvUnified(const ServerSettings& settings);
std::vector<FlagValues> writeCacheTypeK(const ServerSettings& settings);
std::vector<FlagValues> writeCacheTypeV(const ServerSettings& settings);
std::vector<FlagValues> writeFlashAttention(const ServerSettings& settings);
std::vector<FlagValues> writeBatch(const ServerSettings& settings);
std::vector<FlagValues> writeUbatch(const ServerSettings& settings);
std::vector<FlagValues> writeGpuLayers(const ServerSettings& settings);
std::vector<FlagValues> writeSwaFull(const ServerSettings& settings);
std::vector<FlagValues> writeNoKvOffload(const ServerSettings& settings);
std::vector<FlagValues> writeTensorSplit(const ServerSettings& settings);
std::vector<FlagValues> writeRpcServers(const ServerSettings& settings);
std::vector<FlagValues> writeOverrideTensor(const ServerSettings& settings);
std::vector<FlagValues> writeCpuMoe(const ServerSettings& settings);
std::vector<FlagValues> writeCpuMoeLayers(const ServerSettings& settings);
std::vector<FlagValues> writeLoadMode(const ServerSettings& settings);
std::vector<FlagValues> writeNoRepack(const ServerSettings& settings);
std::vector<FlagValues> writeCacheRam(const ServerSettings& settings);
std::vector<FlagValues> writeContextCheckpoints(const ServerSettings& settings);

// Whether a word is a value of the optional-value -fa (on|off|auto and their synonyms).
bool isFlashAttentionValue(std::string_view word);

} // namespace llamafit::settingflags
