/// Linux's epoll for the protocol server's own event loops (`SocketLoop`). The Glibc module does not export
/// <sys/epoll.h>, and `struct epoll_event` is packed on x86-64 only, so the calls are wrapped here with plain types
/// (a header of this module must not include system headers: see CSocket's).
#ifndef NOSIGNAL_CEVENTPOLL_H
#define NOSIGNAL_CEVENTPOLL_H

/// One ready descriptor: its events are the EPOLL* bits below.
typedef struct {
    int descriptor;
    unsigned int events;
} nosignal_poll_event;

enum {
    NOSIGNAL_POLL_IN = 0x001,
    NOSIGNAL_POLL_OUT = 0x004,
    NOSIGNAL_POLL_ERR = 0x008,
    NOSIGNAL_POLL_HUP = 0x010,
};

/// epoll_create1(EPOLL_CLOEXEC).
int nosignal_poll_create(void);
/// Watches `descriptor` for `events` (added when `add`, else changed); -1 with errno on failure.
int nosignal_poll_watch(int poll, int descriptor, unsigned int events, int add);
/// Stops watching `descriptor`.
int nosignal_poll_forget(int poll, int descriptor);
/// Waits at most `timeout` milliseconds (-1: no limit) for at most `capacity` (≤ 64) ready descriptors.
int nosignal_poll_wait(int poll, nosignal_poll_event *events, int capacity, int timeout);

#endif
