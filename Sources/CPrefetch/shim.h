// The compiler's prefetch hint, which Swift does not offer: a scan over many small heap objects asks for the next
// ones' memory while it reads the current one.
#ifndef NOSIGNAL_CPREFETCH_H
#define NOSIGNAL_CPREFETCH_H

static inline void nosignal_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
