
final