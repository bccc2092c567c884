import CAvahi
import Foundation
import Glibc
import Logging

/// Publishes the server on the LAN through Avahi (`_mpd._tcp`, and `_http._tcp` for the page), as MPD's
/// `zeroconf_enabled` does, so that phone apps find it by name. It runs on Avahi's threaded poll; every call into
/// Avahi from elsewhere holds the poll's lock.
///
/// Avahi comes and goes without taking the server along (MPD passes `AVAHI_CLIENT_NO_FAIL` too): with no
/// avahi-daemon the client waits in `CONNECTING` and publishes when the daemon appears; when the daemon restarts the
/// client is made again; with no D-Bus at all it is tried again every `retryInterval`. Each of these is one log line.
/// A name taken by another host becomes Avahi's alternative (`NoSignal @ box #2`).
public final class ZeroconfPublisher: @unchecked Sendable {
    public struct Service: Sendable, Equatable {
        public var type: String
        public var port: Int

        public init(type: String, port: Int) {
            self.type = type
            self.port = port
        }
    }

    /// The name as published now (after collisions), for tests and logs.
    public var publishedName: String { withState { $0.name } }

    private let services: [Service]
    private let logger: Logger
    private let retryInterval: Duration
    private struct State {
        var name: String
        var poll: OpaquePointer?
        var client: OpaquePointer?
        var group: OpaquePointer?
        var stopped = false
        /// The last condition logged, so that each change is one line, not one per retry.
        var reported: String?
    }
    /// Guarded by `lock` (Avahi's pointers are not `Sendable`, so not a `Mutex`).
    private var stateStorage: State
    private let lock = NSLock()

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&stateStorage)
    }

    /// `name` may hold `%h`, the host name (MPD's `zeroconf_name` rule).
    public init(name: String, services: [Service], logger: Logger, retryInterval: Duration = .seconds(10)) {
        var host = [UInt8](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }, as: UTF8.self)
        self.services = services
        self.logger = logger
        self.retryInterval = retryInterval
        stateStorage = State(name: Self.truncated(name.replacingOccurrences(of: "%h", with: hostName)))
    }

    /// A DNS-SD service name is at most 63 bytes of UTF-8: cut on a character boundary.
    static func truncated(_ name: String) -> String {
        var result = ""
        for character in name {
            guard result.utf8.count + String(character).utf8.count <= 63 else { break }
            result.append(character)
        }
        return result
    }

    public func start() {
        let poll = avahi_threaded_poll_new()
        guard let poll else {
            logger.error("zeroconf: cannot start Avahi's event loop")
            return
        }
        withState { $0.poll = poll }
        avahi_threaded_poll_lock(poll)
        makeClient()
        avahi_threaded_poll_unlock(poll)
        avahi_threaded_poll_start(poll)
    }

    public func stop() {
        let poll = withState { state -> OpaquePointer? in
            state.stopped = true
            return state.poll
        }
        guard let poll else { return }
        avahi_threaded_poll_stop(poll)
        withState { state in
            if let client = state.client { avahi_client_free(client) }  // frees its groups too
            state.client = nil
            state.group = nil
            state.poll = nil
        }
        avahi_threaded_poll_free(poll)
    }

    deinit { stop() }

    // MARK: On Avahi's thread (or with its lock held)

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private func makeClient() {
        guard let poll = withState({ $0.stopped ? nil : $0.poll }) else { return }
        var error: Int32 = 0
        let client = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, clientState, context in
            guard let context, let client else { return }
            Unmanaged<ZeroconfPublisher>.fromOpaque(context).takeUnretainedValue().clientChanged(client, clientState)
        }, context, &error)
        if client == nil {
            report("zeroconf: Avahi is not reachable (\(String(cString: avahi_strerror(error)))); trying again every \(retryInterval)")
            retryLater()
            return
        }
        withState { $0.client = client }
    }

    /// No D-Bus: the client cannot even wait for the daemon, so it is made again later, from a thread of our own (the
    /// poll runs no timers without a client).
    private func retryLater() {
        let interval = retryInterval
        Thread.detachNewThread { [weak self] in
            Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
            guard let self, let poll = self.withState({ $0.stopped ? nil : $0.poll }) else { return }
            avahi_threaded_poll_lock(poll)
            self.makeClient()
            avahi_threaded_poll_unlock(poll)
        }
    }

    private func clientChanged(_ client: OpaquePointer, _ clientState: AvahiClientState) {
        switch clientState {
        case AVAHI_CLIENT_S_RUNNING:
            publish(client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name changed or collides: withdraw until the daemon runs again.
            if let group = withState({ $0.group }) { avahi_entry_group_reset(group) }
        case AVAHI_CLIENT_CONNECTING:
            report("zeroconf: avahi-daemon is not running; publishing when it starts")
        case AVAHI_CLIENT_FAILURE:
            let error = avahi_client_errno(client)
            // The daemon went away (restarted): a new client waits for it.
            withState { state in
                state.group = nil
                state.client = nil
            }
            avahi_client_free(client)
            report("zeroconf: lost avahi-daemon (\(String(cString: avahi_strerror(error)))); waiting for it")
            makeClient()
        default:
            break
        }
    }

    private func publish(_ client: OpaquePointer) {
        var group = withState { $0.group }
        if group == nil {
            group = avahi_entry_group_new(client, { group, groupState, context in
                guard let context, let group else { return }
                Unmanaged<ZeroconfPublisher>.fromOpaque(context).takeUnretainedValue().groupChanged(group, groupState)
            }, context)
            withState { $0.group = group }
        }
        guard let group else {
            logger.error("zeroconf: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
            return
        }
        guard avahi_entry_group_is_empty(group) != 0 else { return }
        let name = withState { $0.name }
        for service in services {
            let result = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC),
                                                              AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                              AvahiPublishFlags(0), name, service.type, nil, nil,
                                                              UInt16(clamping: service.port), nil)
            if result == AVAHI_ERR_COLLISION {
                rename(group)
                return
            }
            if result < 0 {
                logger.error("zeroconf: cannot publish \(service.type): \(String(cString: avahi_strerror(result)))")
                return
            }
        }
        let result = avahi_entry_group_commit(group)
        if result < 0 { logger.error("zeroconf: cannot publish: \(String(cString: avahi_strerror(result)))") }
    }

    private func groupChanged(_ group: OpaquePointer, _ groupState: AvahiEntryGroupState) {
        switch groupState {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            let name = withState { $0.name }
            report("zeroconf: published as \"\(name)\" (\(services.map { "\($0.type) port \($0.port)" }.joined(separator: ", ")))")
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename(group)
        case AVAHI_ENTRY_GROUP_FAILURE:
            logger.error("zeroconf: \(String(cString: avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(group)))))")
        default:
            break
        }
    }

    /// Another host has the name: take Avahi's alternative and publish again.
    private func rename(_ group: OpaquePointer) {
        let old = withState { $0.name }
        guard let alternative = avahi_alternative_service_name(old) else { return }
        let name = String(cString: alternative)
        avahi_free(alternative)
        withState { $0.name = name }
        logger.notice("zeroconf: \"\(old)\" is taken on the network; now \"\(name)\"")
        avahi_entry_group_reset(group)
        if let client = avahi_entry_group_get_client(group) { publish(client) }
    }

    private func report(_ line: String) {
        let fresh = withState { state -> Bool in
            guard state.reported != line else { return false }
            state.reported = line
            return true
        }
        if fresh { logger.notice("\(line)") }
    }
}
