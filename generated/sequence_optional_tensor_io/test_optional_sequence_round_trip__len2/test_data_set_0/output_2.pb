2ÜnïcödéB
sequence_1