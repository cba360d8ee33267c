// Placeholder until the fuzz target lands in this session.
print("lanes-fuzz: not built yet")
