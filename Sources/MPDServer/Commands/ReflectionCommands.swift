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
            // MPD 0.23 prints only the music directory (0.24 adds playlist_directory and pcre; python-mpd2
            // reads exactly one item).
            if let music = context.server.settings.musicDirectory { response.add("music_directory", music) }
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
