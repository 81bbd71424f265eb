#pragma once
// The NVML types LlamaFit uses, declared from the documented nvml.h layout so that no NVIDIA
// header is needed to build: the struct tags at global scope, as nvml.h has them, so that each
// function resolved by name from libnvidia-ml is called through a pointer of exactly its type
// (calling through another type is undefined; UBSan's -fsanitize=function checks it). One home
// for core/system/nvmlprobe.cpp and the fake library its tests load (tests/unit/system/fakenvml.cpp).

struct nvmlDevice_st; // opaque; nvml.h: typedef struct nvmlDevice_st* nvmlDevice_t

// nvml.h nvmlMemory_t (v1): total, free, used, in bytes.
struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

// nvml.h nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3.
struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; // (device id << 16) | vendor id
    unsigned int pciSubSystemId;
    char busId[32];
};
