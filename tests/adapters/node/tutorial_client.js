// The socket-uno tutorial page's client side, on the official socket.io-client 2.5.0, remote-controlled.
//
// Usage: node tutorial_client.js <server url> <player name> <transports, comma-separated>
// Like the page: io({autoConnect: false}), connect(), requestRoom(playerName) on 'connect', `room`
// kept from responseRoom as it came, `hand` from haveCard; a click on a card emits
// playCard [hand[i], room], a click on the deck emits drawCard [1, room].
// Every event the page listens to is written to stdout as one JSON line; stdin takes JSON lines:
// {"click": "card", "index": i}, {"click": "deck"}, {"emit": name, "data": value}, {"close": true}.
'use strict';
const readline = require('readline');
const io = require('socket.io-client');

const [url, playerName, transports] = process.argv.slice(2);
const socket = io(url, { autoConnect: false, reconnection: false, forceNew: true, transports: transports.split(',') });
let room = 0;
let hand = [];

function out(record) {
  process.stdout.write(JSON.stringify(record) + '\n');
}

socket.on('connect', function () {
  out({ type: 'connect', id: socket.id, transport: socket.io.engine.transport.name });
  socket.emit('requestRoom', playerName);
  room = 0;
  hand = [];
});
socket.on('responseRoom', function (name) {
  if (name != 'error') room = name;
});
socket.on('haveCard', function (nums) {
  hand = nums;
});
socket.on('disconnect', function (reason) {
  out({ type: 'disconnect', reason: reason });
});
socket.on('connect_error', function (err) {
  out({ type: 'connect_error', message: String(err && err.message) });
});
for (const name of ['responseRoom', 'countDown', 'haveCard', 'turnPlayer', 'sendCard', 'playerDisconnect', 'error']) {
  socket.on(name, function (data) {
    out({ type: 'event', name: name, data: data === undefined ? null : data });
  });
}

socket.connect();
socket.io.engine.on('upgrade', function (transport) {
  out({ type: 'upgrade', transport: transport.name });
});

readline.createInterface({ input: process.stdin }).on('line', function (line) {
  const command = JSON.parse(line);
  if (command.click === 'card') {
    socket.emit('playCard', [hand[command.index], room]);
  } else if (command.click === 'deck') {
    socket.emit('drawCard', [1, room]);
  } else if (command.emit) {
    socket.emit(command.emit, command.data);
  } else if (command.close) {
    socket.close();
  }
}).on('close', function () {
  socket.close(); // Node exits once the close has gone out (a last POST, or the websocket's close)
});
