import MPDProtocol

/// "Connection settings": `close`, `kill`, `password`, `ping`, `binarylimit`, `tagtypes`, `protocol`.
enum ConnectionCommands {
    /// MPD 0.24 protocol features a client can switch on.
    static let protocolFeatures = ["hide_playlists_in_root"]

    static let all: [CommandSpec] = [
        CommandSpec("close", .none, nil) { _, _ in .close },
        CommandSpec("kill", .admin, nil) { context, _ in
            context.server.requestShutdown()
            return .kill
        },
        CommandSpec("ping", .none, 0...0) { _, _ in .ok(Response()) },
        /// Replaces the client's permissions with the password's.
        CommandSpec("password", .none, 1...1) { context, request in
            guard let permission = context.server.settings.passwords[request[0]] else {
                throw ACKError(.password, "incorrect password")
            }
            context.client.permission = permission
            return .ok(Response())
        },
        CommandSpec("binarylimit", .none, 1...1) { context, request in
            let maximum = UInt(max(context.server.settings.maxOutputBufferSize - 4096, 0))
            let value = try MPDInteger.parseUnsigned(request[0], max: maximum)
            guard value >= 64 else { throw ACKError(.arg, "Value too small") }
            context.client.binaryLimit = Int(value)
            return .ok(Response())
        },
        CommandSpec("tagtypes", .none, 0...0, unbounded: true) { context, request in
            var response = Response()
            guard let sub = request.arguments.first else {
                for tag in context.effectiveTagMask.tags { response.add("tagtype", tag.mpdName) }
                return .ok(response)
            }
            let names = Array(request.arguments.dropFirst())
            switch sub {
            case "all", "clear":
                guard names.isEmpty else { throw ACKError(.arg, "Too many arguments") }
                context.client.tagMask = sub == "all" ? .all : .none
            case "enable":
                context.client.tagMask = TagMask(bits: context.client.tagMask.bits | (try tagMask(names)).bits)
            case "disable":
                context.client.tagMask = TagMask(bits: context.client.tagMask.bits & ~(try tagMask(names)).bits)
            case "reset":
                // MPD empties the mask before it reads the names: a bad name leaves no tag enabled.
                context.client.tagMask = .none
                context.client.tagMask = try tagMask(names)
            case "available":
                for tag in context.server.settings.globalTagMask.tags { response.add("tagtype", tag.mpdName) }
            default:
                throw ACKError(.arg, "Unknown sub command")
            }
            return .ok(response)
        },
        CommandSpec("protocol", .none, 0...0, unbounded: true) { context, request in
            var response = Response()
            guard let sub = request.arguments.first else {
                for feature in protocolFeatures where context.client.protocolFeatures.contains(feature) {
                    response.add("feature", feature)
                }
                return .ok(response)
            }
            let names = Array(request.arguments.dropFirst())
            switch sub {
            case "all", "clear":
                guard names.isEmpty else { throw ACKError(.arg, "Too many arguments") }
                context.client.protocolFeatures = sub == "all" ? Set(protocolFeatures) : []
            case "enable":
                context.client.protocolFeatures.formUnion(try features(names))
            case "disable":
                context.client.protocolFeatures.subtract(try features(names))
            case "available":
                guard names.isEmpty else { throw ACKError(.arg, "Too many arguments") }
                for feature in protocolFeatures { response.add("feature", feature) }
            default:
                throw ACKError(.arg, "Unknown sub command")
            }
            return .ok(response)
        },
    ]

    private static func tagMask(_ names: [String]) throws(ACKError) -> TagMask {
        guard !names.isEmpty else { throw ACKError(.arg, "Not enough arguments") }
        var mask = TagMask.none
        for name in names {
            guard let tag = TagName(parsing: name) else { throw ACKError(.arg, "Unknown tag type") }
            mask.insert(tag)
        }
        return mask
    }

    private static func features(_ names: [String]) throws(ACKError) -> Set<String> {
        guard !names.isEmpty else { throw ACKError(.arg, "Not enough arguments") }
        var result = Set<String>()
        for name in names {
            guard let feature = protocolFeatures.first(where: { $0.lowercased() == name.lowercased() }) else {
                // MPD's text, typo included, since clients may match on it.
                throw ACKError(.arg, "Unknown protcol feature")
            }
            result.insert(feature)
        }
        return result
    }
}
