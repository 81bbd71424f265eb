#pragma once
// Whether this test build runs under AddressSanitizer (the "asan" preset of CMakePresets.json),
// for the few checks that cannot hold there: resident-memory bounds (ASan's quarantine keeps
// freed blocks resident) and address-space limits (ASan reserves terabytes of shadow memory,
// so a process under RLIMIT_AS cannot even start). GCC defines __SANITIZE_ADDRESS__; clang 14
// answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define LLAMAFIT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LLAMAFIT_UNDER_ASAN 1
#endif
#endif
#ifndef LLAMAFIT_UNDER_ASAN
#define LLAMAFIT_UNDER_ASAN 0
#endif
