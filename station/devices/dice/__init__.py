"""Smart dice at the table (hardware.md "Smart dice"): Pixels read from their advertisements,
GoDice over a connection, their rolls told apart from pick-ups and nudges, and handed to the game
once each.  ``codec`` reads the makes' bytes, ``rolls`` says which readings are a roll,
``transport`` is the seam to a Bluetooth stack (``bleak_radio`` the real one, ``virtual`` the
rehearsal hub's), and ``source`` runs it all on one thread."""
