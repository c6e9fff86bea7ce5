export default function Index() {
  return (
    <main>
      <h1>Roomstage</h1>
    </main>
  );
}
