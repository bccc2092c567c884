import CEventPoll
import Glibc
import NIOCore

/// An MPD connection's socket on one of the server's own loops (`SocketLoop`): reads into the connection's input,
/// sends its answers with one `send` each, and keeps what the socket does not take until it is writable again.
/// Touched on the loop's thread only.
final class SocketConnection: ConnectionIO {
    private var descriptor: CInt
    private unowned let loop: SocketLoop
    /// Nil once closed (which also ends the cycle between the two).
    private var connection: Connection<SocketConnection>?
    /// What the socket has not taken yet; sent when it is writable.
    private var unsent: ByteBuffer?
    private var closeWhenSent = false
    /// The loop watches for input (it stops while the connection takes none and input comes).
    private var watchingInput = true
    /// How much the next read may take: from 1 KiB, doubled up to `MPDService.readSize` whenever a read fills it.
    private var readSize = 1024

    init(descriptor: CInt, loop: SocketLoop) {
        self.descriptor = descriptor
        self.loop = loop
    }

    func start(_ connection: Connection<SocketConnection>) {
        self.connection = connection
        if !connection.start() { close(afterSending: false) }
    }

    /// The loop found the socket ready for `events` (`NOSIGNAL_POLL_*`).
    func ready(_ events: UInt32) {
        if events & UInt32(NOSIGNAL_POLL_OUT) != 0 { writable() }
        if events & UInt32(NOSIGNAL_POLL_IN | NOSIGNAL_POLL_ERR | NOSIGNAL_POLL_HUP) != 0 { readable(events) }
    }

    private func readable(_ events: UInt32) {
        guard let connection, descriptor >= 0 else { return }
        guard connection.takesInput else {
            if events & UInt32(NOSIGNAL_POLL_ERR | NOSIGNAL_POLL_HUP) != 0 {
                // Gone while a command was deferred: nothing more can be answered.
                close(afterSending: false)
            } else {
                watchingInput = false
                watch()
            }
            return
        }
        let size = readSize
        let count = connection.input.read(from: descriptor, upTo: size)
        if count > 0 {
            if count == size, readSize < MPDService.readSize { readSize *= 2 }
            connection.received()
            connection.readComplete()
        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
            // The client closed its side (MPD closes too), or the socket failed.
            close(afterSending: false)
        }
    }

    private func writable() {
        guard var rest = unsent, descriptor >= 0 else { return }
        let sent = rest.withUnsafeReadableBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL))
        }
        if sent < 0 {
            if errno != EAGAIN, errno != EINTR { failed() }
            return
        }
        rest.moveReaderIndex(forwardBy: sent)
        if rest.readableBytes > 0 {
            unsent = rest
            return
        }
        unsent = nil
        if closeWhenSent {
            close(afterSending: false)
        } else {
            watch()
        }
    }

    /// Tells the loop what to watch for: input unless held, and writability while something waits unsent.
    private func watch() {
        var events: UInt32 = 0
        if watchingInput { events |= UInt32(NOSIGNAL_POLL_IN) }
        if unsent != nil { events |= UInt32(NOSIGNAL_POLL_OUT) }
        loop.watch(descriptor, events: events)
    }

    /// A send failed (the client went away).
    private func failed() {
        unsent = nil
        close(afterSending: false)
    }

    // ConnectionIO

    var executor: SocketLoop { loop }

    func afterOthers(_ body: @escaping @Sendable () -> Void) {
        loop.later(body)
    }

    func schedule(at deadline: NIODeadline, _ body: @escaping @Sendable () -> Void) -> Int {
        loop.schedule(at: deadline, body)
    }

    func cancelTimer(_ timer: Int) {
        loop.cancel(timer)
    }

    func send(_ buffer: ByteBuffer) -> Bool {
        guard descriptor >= 0 else { return false }
        if unsent != nil {
            unsent!.writeImmutableBuffer(buffer)
            return false
        }
        let sent = buffer.withUnsafeReadableBytes {
            Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL))
        }
        if sent == buffer.readableBytes { return true }
        if sent < 0, errno != EAGAIN, errno != EINTR {
            failed()
            return false
        }
        var rest = buffer
        rest.moveReaderIndex(forwardBy: max(sent, 0))
        unsent = rest
        watch()
        return false
    }

    var unsentBytes: Int { unsent?.readableBytes ?? 0 }

    func close(afterSending: Bool) {
        guard descriptor >= 0 else { return }
        if afterSending, unsent != nil {
            closeWhenSent = true
            return
        }
        loop.forget(descriptor)
        descriptor = -1
        unsent = nil
        // The connection learns it after what it is doing now (this may be called from within it).
        let connection = LoopBound(value: connection)
        self.connection = nil
        loop.later { connection.value?.closed() }
    }

    func resumeReading() {
        guard !watchingInput, descriptor >= 0 else { return }
        watchingInput = true
        watch()
    }
}
