"""Values read from answers: numbers, quantities, LaTeX, math answers, JSON, abstention and shared phrases."""
