import MPDProtocol
import PlayerCore
import PlayerRuntime
import ServerPorts

/// "Querying MPD's status" (`doc/protocol.rst`): `clearerror`, `currentsong`, `idle`, `status`, `stats`.
enum StatusCommands {
    static let all: [CommandSpec] = [
        CommandSpec("clearerror", .player, 0...0) { context, _ in
            try context.server.store.send(.clearError, partition: context.client.partition)
            return .ok(Response())
        },
        /// The song at the current position; empty when there is none.
        CommandSpec("currentsong", .read, 0...0) { context, _ in
            var response = Response()
            if let p = context.server.store.partition(context.client.partition), let position = p.currentPosition {
                SongFormatter.write(p.queue.items[position], position: position, mask: context.effectiveTagMask,
                                    into: &response)
            }
            return .ok(response)
        },
        /// Names are case-insensitive; none means every subsystem.
        CommandSpec("idle", .read, 0...0, unbounded: true) { _, request in
            var flags: IdleSubsystems = []
            for name in request.arguments {
                guard let flag = IdleSubsystems(name: name) else {
                    throw ACKError(.arg, "Unrecognized idle event: \(name)", verbatim: true)
                }
                flags.formUnion(flag)
            }
            return .idle(flags.isEmpty ? .all : flags)
        },
        CommandSpec("status", .read, 0...0) { context, _ in
            // The server once: each `context.server.…` retained and released the server around its use.
            let server = context.server
            let updatingDB = server.database?.updatingJobID
            // Formatted from the store's state in place. Stopped, the player has no progress to print (the engine is
            // not asked; when it is, its lock is taken inside the store's, the order the playback effects take them).
            var response = Response(reusing: &context.spareBytes)
            guard server.store.read(partition: context.client.partition, { p in
                let progress = p.pointee.player.state == .stop ? nil : server.audio?.progress(partition: p.pointee.name)
                StatusFormatter.status(of: p, progress: progress, updatingDB: updatingDB, into: &response)
            }) else {
                throw PlayerError.noSuchPartition(context.client.partition)
            }
            return .ok(response)
        },
        /// `src/Stats.cxx`: uptime and playtime (the seconds the client's partition has played, rounded:
        /// `lround(pc.GetTotalPlayTime())`), then with a database its counts and `db_update`.
        CommandSpec("stats", .read, 0...0) { context, _ in
            var response = Response()
            let uptime = ContinuousClock.now - context.server.startTime
            response.add("uptime", uptime.components.seconds)
            let played = context.server.audio?.totalPlayTime(partition: context.client.partition) ?? 0
            response.add("playtime", Int(played.rounded(.toNearestOrAwayFromZero)))
            guard let database = context.server.database else { return .ok(response) }
            let head = response
            return .deferred {
                var response = head
                let stats = try await database.statistics()
                response.add("artists", stats.artists)
                response.add("albums", stats.albums)
                response.add("songs", stats.songs)
                response.add("db_playtime", stats.playtime)
                if let update = stats.lastUpdate { response.add("db_update", update) }
                return response
            }
        },
    ]
}

extension CommandContext {
    /// The tags this client sees: the server's tags narrowed by the client's `tagtypes`.
    var effectiveTagMask: TagMask { server.settings.globalTagMask.intersection(client.tagMask) }
}
