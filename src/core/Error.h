// Error reporting of the public entry points (DEVELOPERS.md error policy).
#pragma once

namespace simd {

// The last-error slot of the calling thread. Initial-exec TLS keeps access to one instruction,
// so that resetting it on every successful call costs nothing measurable. GCC's __thread, not
// C++ thread_local: a thread_local with external linkage goes through a TLS-init wrapper that
// GCC 12's UBSan instrumentation miscompiles (every store aborts as a null dereference).
extern __thread const char* g_lastError __attribute__((tls_model("initial-exec")));

// Every public entry point starts with this: a call that succeeds leaves no message behind.
inline void ClearLastError() {
    g_lastError = nullptr;
}

// Records a static message (no formatting, no allocation).
inline void SetLastError(const char* message) {
    g_lastError = message;
}

// Records a printf-formatted message in a per-thread buffer (slow path only: a rejected call).
// Always returns false so that validators can `return SetLastErrorF(...)`.
bool SetLastErrorF(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace simd

// Rejects the call: records the message and returns from the entry point (with `value` for
// functions that return something).
#define SIMD_FAIL_IF(condition, message)   \
    do {                                   \
        if (condition) {                   \
            ::simd::SetLastError(message); \
            return;                        \
        }                                  \
    } while (0)

#define SIMD_FAIL_IF_RETURN(condition, message, value) \
    do {                                               \
        if (condition) {                               \
            ::simd::SetLastError(message);             \
            return value;                              \
        }                                              \
    } while (0)
