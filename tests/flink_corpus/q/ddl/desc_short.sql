-- DESC (short form of DESCRIBE)
DESC bids;
