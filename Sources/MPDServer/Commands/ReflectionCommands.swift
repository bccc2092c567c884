import MPDProtocol

/// "Reflection": `commands`, `notcommands`, `config`, `urlhandlers`, `decoders`.
enum ReflectionCommands {
    static let all: [CommandSpec] = [
        /// Generated from the command table: what this client may run.
        CommandSpec("commands", .none, 0...0) { context, _ in
            var response = Response()
            for spec in context.server.table.commands where context.client.permission.isSuperset(of: spec.permission) {
                response.add("command", spec.name)
            }
            return .ok(response)
        },
        CommandSpec("notcommands", .none, 0...0) { context, _ in
            var response = Response()
            for spec in context.server.table.everyCommand
            where !context.client.permission.isSuperset(of: spec.permission) {
                response.add("command", spec.name)
            }
            return .ok(response)
        },
        /// Local (unix socket) clients only, since it reveals paths.
        CommandSpec("config", .admin, 0...0) { context, _ in
            guard context.client.isLocal else {
                throw ACKError(.permission, "Command only permitted to local clients")
            }
            var response = Response()
            // `handle_config` (0.24): the music directory, the playlist directory and PCRE support (NoSignal's
            // filters always have it). python-mpd2 3.0's `config()` expects one item and answers None to this, as
            // it does for MPD 0.24.
            if let music = context.server.settings.musicDirectory { response.add("music_directory", music) }
            if let playlists = context.server.settings.playlistDirectory { response.add("playlist_directory", playlists) }
            response.add("pcre", 1)
            return .ok(response)
        },
        CommandSpec("urlhandlers", .read, 0...0) { context, _ in
            var response = Response()
            if context.client.isLocal { response.add("handler", "file://") }
            for scheme in context.server.settings.urlSchemes { response.add("handler", scheme) }
            return .ok(response)
        },
        CommandSpec("decoders", .read, 0...0) { context, _ in
            var response = Response()
            for plugin in context.server.settings.decoders {
                response.add("plugin", plugin.name)
                for suffix in plugin.suffixes { response.add("suffix", suffix) }
                for mime in plugin.mimeTypes { response.add("mime_type", mime) }
            }
            return .ok(response)
        },
    ]
}
