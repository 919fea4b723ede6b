# A Ruby stack of known depth for bench/ruby_sample: <main>, recurse N+1
# times, then spin forever; "ready" once at the bottom.
# Usage: ruby ruby_deep.rb N

def spin
  x = 0
  loop_forever = true
  while loop_forever
    x = (x + 1) % 1000003
  end
end

def recurse(n)
  return recurse(n - 1) if n > 0
  $stdout.puts "ready"
  $stdout.flush
  spin
end

recurse((ARGV[0] || 17).to_i)
