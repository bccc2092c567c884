import MPDProtocol
import PlayerCore
import PlayerRuntime

/// "Playback options": `consume`, `crossfade`, `mixrampdb`, `mixrampdelay`, `random`, `repeat`, `setvol`,
/// `getvol`, `single`, `replay_gain_mode`, `replay_gain_status`, `volume`.
enum PlaybackOptionsCommands {
    static let all: [CommandSpec] = [
        option("consume") { request throws(ACKError) in
            .setConsume(try oneshotMode(request[0], what: "consume"))
        },
        option("crossfade") { request throws(ACKError) in
            .setCrossfade(seconds: Double(try MPDInteger.parseUnsigned(request[0])))
        },
        option("mixrampdb") { request throws(ACKError) in .setMixrampDB(try request.argument(Float.self, 0)) },
        option("mixrampdelay") { request throws(ACKError) in .setMixrampDelay(try request.argument(Float.self, 0)) },
        option("random") { request throws(ACKError) in .setRandom(try request.argument(Bool.self, 0)) },
        option("repeat") { request throws(ACKError) in .setRepeat(try request.argument(Bool.self, 0)) },
        option("single") { request throws(ACKError) in .setSingle(try oneshotMode(request[0], what: "single")) },
        option("replay_gain_mode") { request throws(ACKError) in
            guard let mode = ReplayGainMode(rawValue: request[0]) else {
                throw ACKError(.arg, "Unrecognized replay gain mode")
            }
            return .setReplayGainMode(mode)
        },
        option("setvol") { request throws(ACKError) in
            .setVolume(Int(try MPDInteger.parseUnsigned(request[0], max: 100)))
        },
        /// Relative change, clamped to 0…100; `No mixer` without one.
        option("volume") { request throws(ACKError) in
            .changeVolume(by: try MPDInteger.parse(request[0], in: -100...100))
        },
        CommandSpec("getvol", .read, 0...0) { context, _ in
            var response = Response()
            if let volume = context.server.store.partition(context.client.partition)?.volume {
                response.add("volume", volume)
            }
            return .ok(response)
        },
        CommandSpec("replay_gain_status", .read, 0...0) { context, _ in
            var response = Response()
            let mode = context.server.store.partition(context.client.partition)?.options.replayGainMode ?? .off
            response.add("replay_gain_mode", mode.rawValue)
            return .ok(response)
        },
    ]

    /// A one-argument player-permission command that becomes one action.
    private static func option(_ name: String, _ action: @escaping @Sendable (Request) throws(ACKError) -> Action)
        -> CommandSpec
    {
        CommandSpec(name, .player, 1...1) { context, request in
            try context.server.store.send(try action(request), partition: context.client.partition)
            return .ok(Response())
        }
    }

    /// `0`, `1` or `oneshot` (`SingleFromString`; `consume` accepts `oneshot` since MPD 0.24).
    private static func oneshotMode(_ text: String, what: String) throws(ACKError) -> OneshotMode {
        guard let mode = OneshotMode(rawValue: text) else {
            throw ACKError(.arg, "Unrecognized \(what) mode, expected 0, 1, or oneshot")
        }
        return mode
    }
}
