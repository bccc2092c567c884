import Foundation
import MPDProtocol
import MPDServer
import PlayerCore
import PlayerRuntime

extension Router {
    /// `GET /api/events`: server-sent events. `status` (the `/api/status` object) at once, again whenever the player,
    /// the volume or the options change, and every `heartbeat` seconds (so a page that slept catches up and proxies
    /// keep the connection); `queue` (`{"version": N}`) when the queue changes. The page follows the player with
    /// these and its own clock; it never polls.
    func events(_ permission: Permission) -> WebResponse {
        let changes = store.changes()
        let router = self
        let stream = AsyncStream<[UInt8]> { continuation in
            let task = Task {
                func send(_ event: String, _ object: Any?) {
                    guard let object, let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    else { return }
                    continuation.yield(Array("event: \(event)\ndata: ".utf8) + Array(data) + Array("\n\n".utf8))
                }
                send("status", await router.status(permission))
                // Changes and the heartbeat meet in one stream, so that one loop sends in order.
                let (ticks, tick) = AsyncStream.makeStream(of: IdleSubsystems.self)
                let forward = Task {
                    for await set in changes {
                        var flags = IdleSubsystems()
                        for change in set where change.partition == nil || change.partition == PlayerState.defaultPartition {
                            flags.formUnion(change.idleSubsystems)
                        }
                        if !flags.isEmpty { tick.yield(flags) }
                    }
                    tick.finish()
                }
                let beat = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.heartbeat)
                        tick.yield([.player])
                    }
                }
                defer {
                    forward.cancel()
                    beat.cancel()
                }
                for await flags in ticks {
                    if Task.isCancelled { break }
                    if !flags.isDisjoint(with: [.player, .mixer, .options, .playlist]) {
                        send("status", await router.status(permission))
                    }
                    if flags.contains(.playlist) {
                        send("queue", ["version": (try? await router.bridge.run("status", permission: permission))?
                            .first("playlist").flatMap(Int.init) ?? 0])
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        var response = WebResponse(status: 200, contentType: "text/event-stream; charset=utf-8", body: [],
                                   headers: [("Cache-Control", "no-cache")])
        response.events = stream
        return response
    }

    static let heartbeat = Duration.seconds(10)
}
