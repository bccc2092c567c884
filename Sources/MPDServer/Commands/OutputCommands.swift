import MPDProtocol
import PlayerCore
import PlayerRuntime

/// "Audio output devices" (`src/command/OutputCommands.cxx`): `outputs`, `enableoutput`, `disableoutput`,
/// `toggleoutput`, `outputset`.
enum OutputCommands {
    static let all: [CommandSpec] = [
        CommandSpec("outputs", .read, 0...0) { context, _ in
            var response = Response()
            for output in context.server.audio?.outputs(partition: context.client.partition) ?? [] {
                let description = output.description
                response.add("outputid", description.id)
                response.add("outputname", description.name)
                response.add("plugin", description.plugin)
                response.add("outputenabled", output.enabled ? 1 : 0)
                for attribute in description.attributes { response.add("attribute", "\(attribute.name)=\(attribute.value)") }
            }
            return .ok(response)
        },
        set("enableoutput", true),
        set("disableoutput", false),
        set("toggleoutput", nil),
        /// Only the attributes an output declares can be set (ALSA's `dop` and `allowed_formats`).
        CommandSpec("outputset", .admin, 3...3) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard let audio = context.server.audio else { throw ACKError(.noExist, "No such audio output") }
            switch audio.setAttribute(output: id, name: request[1], value: request[2],
                                       partition: context.client.partition) {
            case .noSuchOutput: throw ACKError(.noExist, "No such audio output")
            case .unsupported: throw ACKError(.arg, "Unsupported attribute")
            case .done: return .ok(Response())
            }
        },
    ]

    private static func set(_ name: String, _ on: Bool?) -> CommandSpec {
        CommandSpec(name, .admin, 1...1) { context, request in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            guard context.server.audio?.setOutput(id: id, enabled: on, partition: context.client.partition) == true else {
                throw ACKError(.noExist, "No such audio output")
            }
            return .ok(Response())
        }
    }
}
