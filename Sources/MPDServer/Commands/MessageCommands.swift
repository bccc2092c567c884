import MPDProtocol

/// "Client to client": `subscribe`, `unsubscribe`, `channels`, `readmessages`, `sendmessage`.
enum MessageCommands {
    static let all: [CommandSpec] = [
        CommandSpec("subscribe", .read, 1...1) { context, request in
            switch context.server.clients.subscribe(context.client.id, to: request[0]) {
            case .ok: return .ok(Response())
            case .invalid: throw ACKError(.arg, "invalid channel name")
            case .already: throw ACKError(.exist, "already subscribed to this channel")
            case .full: throw ACKError(.exist, "subscription list is full")
            }
        },
        CommandSpec("unsubscribe", .read, 1...1) { context, request in
            guard context.server.clients.unsubscribe(context.client.id, from: request[0]) else {
                throw ACKError(.noExist, "not subscribed to this channel")
            }
            return .ok(Response())
        },
        CommandSpec("channels", .read, 0...0) { context, _ in
            var response = Response()
            for channel in context.server.clients.channels(for: context.client.id) {
                response.add("channel", channel)
            }
            return .ok(response)
        },
        CommandSpec("readmessages", .read, 0...0) { context, _ in
            var response = Response()
            for message in context.server.clients.takeMessages(context.client.id) {
                response.add("channel", message.channel)
                response.add("message", bytes: message.text)
            }
            return .ok(response)
        },
        CommandSpec("sendmessage", .control, 2...2) { context, request in
            guard ClientRegistry.isValidChannelName(request[0]) else { throw ACKError(.arg, "invalid channel name") }
            guard context.server.clients.send(from: context.client.id, channel: request[0], text: request.rawArguments[1]) else {
                throw ACKError(.noExist, "nobody is subscribed to this channel")
            }
            return .ok(Response())
        },
    ]
}
