import MPDProtocol
import PlayerCore
import PlayerRuntime

/// "Controlling playback" (`src/command/PlayerCommands.cxx`): `next`, `pause`, `play`, `playid`, `previous`,
/// `seek`, `seekid`, `seekcur`, `stop`.
enum PlaybackCommands {
    static let all: [CommandSpec] = [
        command("next", 0...0) { _, _ in .next },
        /// `pause` alone toggles (deprecated in MPD, still answered).
        command("pause", 0...1) { _, request throws(ACKError) in .pause(try request.optionalArgument(Bool.self, 0)) },
        /// `play` alone resumes or plays the current song; `-1` means the same.
        command("play", 0...1, opensOutputs: true) { _, request throws(ACKError) in
            let position = try request.optionalArgument(Int32.self, 0).map(Int.init) ?? -1
            return .play(position: position == -1 ? nil : position)
        },
        command("playid", 0...1, opensOutputs: true) { _, request throws(ACKError) in
            let id = try request.optionalArgument(Int32.self, 0).map(Int.init) ?? -1
            return .playID(id == -1 ? nil : id)
        },
        command("previous", 0...0) { _, _ in .previous },
        command("seek", 2...2) { _, request throws(ACKError) in
            let position = Int(try MPDInteger.parseUnsigned(request[0]))
            return .seek(position: position, seconds: try request.argument(SongTimeArgument.self, 1).seconds)
        },
        command("seekid", 2...2) { _, request throws(ACKError) in
            let id = Int(try MPDInteger.parseUnsigned(request[0]))
            return .seekID(id, seconds: try request.argument(SongTimeArgument.self, 1).seconds)
        },
        /// A leading `+` or `-` seeks relative to the elapsed time.
        command("seekcur", 1...1) { context, request throws(ACKError) in
            let text = request[0]
            let relative = text.hasPrefix("+") || text.hasPrefix("-")
            let seconds = try request.argument(SignedSongTimeArgument.self, 0).seconds
            let elapsed = context.server.audio?.progress(partition: context.client.partition)?.elapsed
            return .seekCurrent(seconds: seconds, relative: relative, elapsed: elapsed)
        },
        command("stop", 0...0) { _, _ in .stop },
    ]

    /// MPD's answer when playing finds every output of the partition disabled.
    static let outputsDisabled = "All audio outputs are disabled"

    /// `opensOutputs`: the command starts the player, which opens the outputs. With none enabled, MPD's player pauses
    /// with the error (`PlayerThread::OpenOutput`). MPD's command has usually returned `OK` by then (its player opens
    /// the outputs once the decoder has produced audio); when the player was quicker, it answers `ACK [5@0]` with the
    /// error (`PlayerControl::SeekLocked` rethrows it). NoSignal answers `OK`, its status already paused.
    private static func command(
        _ name: String, _ arguments: ClosedRange<Int>, opensOutputs: Bool = false,
        _ action: @escaping @Sendable (CommandContext, Request) throws(ACKError) -> Action
    ) -> CommandSpec {
        CommandSpec(name, .player, arguments) { context, request in
            let partition = context.client.partition
            let store = context.server.store
            try store.send(try action(context, request), partition: partition)
            if opensOutputs, context.server.audio != nil, let state = store.partition(partition),
               state.player.state == .play, !state.outputs.contains(where: { $0.output?.enabled == true }) {
                try store.send(.outputsUnavailable(outputsDisabled), partition: partition)
            }
            return .ok(Response())
        }
    }
}
