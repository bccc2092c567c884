#include <sys/epoll.h>
#include "CEventPoll.h"

int nosignal_poll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int nosignal_poll_watch(int poll, int descriptor, unsigned int events, int add) {
    struct epoll_event event = { .events = events, .data = { .fd = descriptor } };
    return epoll_ctl(poll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor, &event);
}

int nosignal_poll_forget(int poll, int descriptor) {
    struct epoll_event unused = { 0 };
    return epoll_ctl(poll, EPOLL_CTL_DEL, descriptor, &unused);
}

int nosignal_poll_wait(int poll, nosignal_poll_event *events, int capacity, int timeout) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(poll, ready, capacity, timeout);
    for (int i = 0; i < count; i++) {
        events[i].descriptor = ready[i].data.fd;
        events[i].events = ready[i].events;
    }
    return count;
}
