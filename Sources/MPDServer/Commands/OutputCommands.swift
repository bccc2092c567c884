import MPDProtocol
import PlayerCore
import PlayerRuntime

/// "Audio output devices" (`src/command/OutputCommands.cxx`): `outputs`, `enableoutput`, `disableoutput`,
/// `toggleoutput`, `outputset`.
enum OutputCommands {
    static let all: [CommandSpec] = [
        CommandSpec("outputs", .read, 0...0) { context, _ in
            var response = Response()
            for (id, slot) in (context.server.store.partition(context.client.partition)?.outputs ?? []).enumerated() {
                response.add("outputid", id)
                response.add("outputname", slot.name)
                guard let output = slot.output else {
                    // What a moved output leaves behind (MPD's dummy).
                    response.add("plugin", "dummy")
                    response.add("outputenabled", 0)
                    continue
                }
                response.add("plugin", output.plugin)
                response.add("outputenabled", output.enabled ? 1 : 0)
                for attribute in output.attributes { response.add("attribute", "\(attribute.name)=\(attribute.value)") }
            }
            return .ok(response)
        },
        set("enableoutput", true),
        set("disableoutput", false),
        set("toggleoutput", nil),
        /// Only the attributes an output declares can be set (ALSA's `dop` and `allowed_formats`).
        CommandSpec("outputset", .admin, 3...3) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            try context.server.store.send(.setOutputAttribute(id: id, name: request[1], value: request[2]),
                                          partition: context.client.partition)
            return .ok(Response())
        },
    ]

    private static func set(_ name: String, _ on: Bool?) -> CommandSpec {
        CommandSpec(name, .admin, 1...1) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            try context.server.store.send(.setOutputEnabled(id: id, on), partition: context.client.partition)
            return .ok(Response())
        }
    }
}
