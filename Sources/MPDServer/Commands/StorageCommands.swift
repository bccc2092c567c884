import MPDProtocol

/// "Mounts and neighbors" (`src/command/StorageCommands.cxx`, `NeighborCommands.cxx`) as Debian's MPD answers them
/// with no storage mounted and no neighbor plugin: NoSignal has no storage plugins (NFS, SMB, UDisks, WebDAV), so
/// the music directory is the only mount and no URI can be mounted. The argument checks come first, as in MPD.
enum StorageCommands {
    /// MPD lists `listneighbors` in `commands` only when a neighbor plugin is configured; it answers all the same.
    static let hiddenWithoutNeighborPlugin: Set<String> = ["listneighbors"]

    static let all: [CommandSpec] = [
        /// The music directory is the root mount (`mount: ` with an empty path). Its `storage:` line, a local path,
        /// is shown to local clients only, as with `config`.
        CommandSpec("listmounts", .read, 0...0) { context, _ in
            _ = try context.requireQueries()
            var response = Response()
            response.add("mount", "")
            if context.client.isLocal, let music = context.server.settings.musicDirectory {
                response.add("storage", music)
            }
            return .ok(response)
        },
        CommandSpec("mount", .admin, 2...2) { context, request in
            _ = try context.requireQueries()
            let mountPoint = request[0]
            guard !mountPoint.isEmpty, !mountPoint.contains("/") else { throw ACKError(.arg, "Bad mount point") }
            throw ACKError(.arg, "Unrecognized storage URI")
        },
        CommandSpec("unmount", .admin, 1...1) { context, request in
            _ = try context.requireQueries()
            guard !request[0].isEmpty else { throw ACKError(.arg, "Bad mount point") }
            throw ACKError(.arg, "Not a mount point")
        },
        CommandSpec("listneighbors", .read, 0...0) { _, _ in
            throw ACKError(.unknown, "No neighbor plugin configured")
        },
    ]
}
